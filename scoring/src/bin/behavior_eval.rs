//! Evaluation of the behavioral engine on the synthetic population: prints the equal error
//! rate of genuine vs. impostor sessions for the engine and for the scaled-Manhattan
//! baseline detector, computed on the same data in the same run (docs/SCORING.md).
//!
//! Usage: behavior_eval [--seed N] [--users N] [--sessions N] [--enroll K] [--batches N] [--features]

use idv_scoring::eval::{run, EvalConfig};

fn main() {
    let mut cfg = EvalConfig::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let mut features = false;
    while i < args.len() {
        if args[i] == "--features" {
            features = true;
            i += 1;
            continue;
        }
        let value = args.get(i + 1).and_then(|v| v.parse::<u64>().ok());
        let Some(v) = value else {
            eprintln!("usage: behavior_eval [--seed N] [--users N] [--sessions N] [--enroll K] [--batches N] [--features]");
            std::process::exit(2);
        };
        match args[i].as_str() {
            "--seed" => cfg.seed = v,
            "--users" => cfg.users = (v as usize).clamp(2, 2_000),
            "--sessions" => cfg.sessions = (v as usize).clamp(2, 200),
            "--enroll" => cfg.enroll = (v as usize).max(1),
            "--batches" => cfg.batches = (v as usize).clamp(1, 64),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    if cfg.enroll >= cfg.sessions {
        eprintln!("--enroll must be smaller than --sessions");
        std::process::exit(2);
    }
    print!("{}", run(&cfg).render());
    if features {
        println!("\nper-feature dispersion on this population (sessions on the users' own devices):");
        print!("{}", idv_scoring::eval::feature_table(&cfg));
    }
}
