//! Face operations on real photos over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_register_authenticate_compare_on_real_photos() {
    idv_tests::face::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_videos_gesture_videos_and_flash_over_http() {
    idv_tests::face_video::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn face_auth_lockout_and_unlock_on_real_photos() {
    idv_tests::face::run_lockout("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_of_dlib_alone_keep_working_and_are_upgraded_on_a_matched_login() {
    idv_tests::face::run_legacy_template_upgrade("memory://").await;
}
