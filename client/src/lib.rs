//! Reference client for the behavioral SDK protocol (issue #3).
