//! `second-implementation [--listen ADDR] [--profile-out FILE] [--fault NAME]...`: serves a seeded
//! instance, with the injected faults named (blind sets); `--list-faults` prints their catalog.

fn main() {
    let mut listen = "127.0.0.1:8090".to_string();
    let mut profile_out: Option<String> = None;
    let mut faults: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = args.next().unwrap_or_default(),
            "--profile-out" => profile_out = args.next(),
            "--fault" => faults.extend(args.next()),
            "--list-faults" => {
                for (name, what) in second_implementation::faults::CATALOG {
                    println!("{name}  {what}");
                }
                return;
            }
            other => {
                eprintln!(
                    "error: unknown argument `{other}` (use --listen ADDR, --profile-out FILE, --fault NAME, --list-faults)"
                );
                std::process::exit(2);
            }
        }
    }
    let Ok(listen) = listen.parse() else {
        eprintln!("error: --listen needs an address such as 127.0.0.1:8090");
        std::process::exit(2);
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            std::process::exit(2);
        }
    };
    rt.block_on(async move {
        let running =
            match second_implementation::start(second_implementation::Options { listen, faults })
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: cannot listen on {listen}: {e}");
                    std::process::exit(2);
                }
            };
        if let Some(path) = profile_out {
            if let Err(e) = std::fs::write(&path, &running.profile) {
                eprintln!("error: cannot write {path}: {e}");
                std::process::exit(2);
            }
        }
        eprintln!("serving on {}", running.base_url());
        let _ = tokio::signal::ctrl_c().await;
        running.stop().await;
    });
}
