//! A certification run, the default command: the arguments checked, the target reached and its
//! keys checked, the trials run, the reports written, what the run created removed.

use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cases::Case;
use crate::cli::RunArgs;
use crate::client::Client;
use crate::error::Error;
use crate::execute::Executor;
use crate::plan::{self, Recorder};
use crate::webhooks::Receiver;

use super::checked::CheckedRun;
use super::connection;
use super::progress::{self, Progress};
use super::reports::{self, Reports};
use super::signals::Signals;
use super::target::Target;
use super::verdict;

/// Runs a certification, or prints the fixtures a profile may name (`--list-fixtures`).
pub fn run(args: RunArgs, key_from_env: bool) -> Result<ExitCode, Error> {
    if args.list_fixtures {
        return list_fixtures(&args);
    }
    let checked = CheckedRun::check(args, key_from_env)?;
    if checked.args.test.json() {
        // stdout carries libtest's JSON events only.
        crate::output::lines_to_stderr();
    }
    certify(checked)
}

/// `--list-fixtures`: the fixtures a profile may name, as lines or (`--markdown`) the README's
/// table.
fn list_fixtures(args: &RunArgs) -> Result<ExitCode, Error> {
    let text = if args.markdown {
        crate::profile::fixture_table()
    } else {
        crate::profile::fixture_lines()
    };
    print!("{}", text?);
    Ok(ExitCode::SUCCESS)
}

/// The run of checked arguments: the target reached (or only listed, with `--list`), the
/// trials run, the verdict said, the reports written before and after the cleanup.
fn certify(checked: CheckedRun) -> Result<ExitCode, Error> {
    let CheckedRun {
        mut args,
        timeout,
        contract,
        cases,
        chosen,
        not_selected,
        selection,
        target,
        run_id,
        seed,
    } = checked;
    let listing = args.test.list;
    let rt = connection::runtime()?;
    let target = Target::start(target, &rt)?;
    let client = target.client(&args, timeout)?;
    let (profile, discovery) = if listing {
        (target.profile.clone(), None)
    } else {
        target.prepare(&rt, &client, &args, &cases, &chosen)?
    };
    let receiver = start_receiver(&args, &rt, &cases, &chosen)?;
    // Where each fixture came from, for the reports.
    let fixture_sources = reports::fixture_sources(&args, &profile, discovery.as_ref());
    let mut exec = Executor::new(contract.clone(), client.clone(), profile, run_id.clone())
        .with_properties(seed, args.property_cases)
        .with_receiver(receiver);
    if let Some(d) = &discovery {
        exec.missing_reasons = d.missing_reasons();
    }
    let exec = Arc::new(exec);
    let recorder = Arc::new(Recorder::default());
    let trials = plan::trials(&cases, exec.clone(), rt.handle().clone(), recorder.clone());
    if args.test.test_threads.is_none() {
        // Trials wait on the network, not the CPU: many more threads than cores keep the pipe
        // full (the client lets at most 32 requests in flight at once, so a target is not
        // flooded). Measured behind 50 ms a request on the 2-core machine: 8 threads 13 s,
        // 16 threads 7.6 s, 32 threads 5.2 s, 48 threads 4.8 s, 64 threads 5.2 s; locally 48
        // threads cost no time and 9 MB more than 8.
        args.test.test_threads = Some(plan::DEFAULT_TRIALS_IN_FLIGHT);
    }
    let signals = Signals::new();
    if !listing {
        let what = if args.target.is_some() {
            target.base_url.clone()
        } else {
            format!("the embedded reference at {}", target.base_url)
        };
        let n = chosen.len();
        crate::output::say(&format!(
            "certifying {what} (run {run_id}, seed {seed}, {n} trials)"
        ));
        signals.handle(&rt, &exec);
    }
    let started = time::OffsetDateTime::now_utc();
    let start = Instant::now();
    let progress = watch(&mut args, chosen.len(), &recorder, &client);
    let conclusion = libtest_mimic::run(&args.test.libtest(), trials);
    progress.finish();
    if listing {
        return Ok(ExitCode::SUCCESS);
    }
    let sent = verdict::Sent {
        requests: client.request_count(),
        elapsed: start.elapsed(),
    };
    let results = recorder.take();
    let interrupted = exec.cleanup.is_interrupted();
    let reports = Reports {
        args: &args,
        base_url: &target.base_url,
        fixture_sources: &fixture_sources,
        run_id: &run_id,
        seed,
        started,
        start,
        client: &client,
        exec: &exec,
        contract: &contract,
        results: &results,
        not_selected: &not_selected,
        selection: &selection,
    };
    // The defects lead, right after libtest's summary.
    let model = reports.model(&exec.cleanup.pending_summary());
    let defects = model.defects.len();
    let lines = crate::report::defect_lines(&model);
    if !lines.is_empty() {
        crate::output::say(&lines);
    }
    // The reports exist before the cleanup, which a silent target or a kill can cut short; they
    // list what is still registered as not removed, and are rewritten once the cleanup is done.
    reports.write(&model)?;
    drop(model);
    signals.cleaning();
    let summary = clean_up(&rt, &exec, &client, timeout);
    signals.rewriting();
    if reports.asked() {
        reports.write(&reports.model(&summary))?;
    }
    // The verdict is the last line: the tail of a CI log shows it, not the cleanup.
    verdict::say_verdict(args.require_complete, &sent, &results, interrupted, defects);
    Ok(verdict::exit_code(
        args.require_complete,
        &results,
        interrupted,
        signals.code(),
        &conclusion,
    ))
}

/// Starts showing the run's progress (none for `--list` or `--format terse`). A live line on a
/// terminal puts stdout through the forwarder, so libtest's colours are asked for explicitly.
fn watch(
    args: &mut RunArgs,
    total: usize,
    recorder: &Arc<Recorder>,
    client: &Arc<Client>,
) -> Progress {
    use libtest_mimic::ColorSetting;
    let terse = args.test.quiet || args.test.format == Some(crate::cli::TrialFormat::Terse);
    let mode = progress::mode(args.test.list, terse);
    if mode == progress::Mode::Bar
        && matches!(args.test.color, None | Some(ColorSetting::Auto))
        && crate::output::through_forwarder()
    {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        args.test.color = Some(if no_color {
            ColorSetting::Never
        } else {
            ColorSetting::Always
        });
    }
    Progress::start(mode, total, recorder.clone(), client.clone())
}

/// The webhook receiver, started once when a chosen case needs it (never for `--list`).
fn start_receiver(
    args: &RunArgs,
    rt: &tokio::runtime::Runtime,
    cases: &[Arc<Case>],
    chosen: &HashSet<String>,
) -> Result<Option<Arc<Receiver>>, Error> {
    let needed = cases
        .iter()
        .any(|c| c.uses_receiver && chosen.contains(&c.name));
    if args.test.list || !needed {
        return Ok(None);
    }
    let listen = args
        .webhook_listen
        .unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    rt.block_on(Receiver::start(listen, args.webhook_url.as_deref()))
        .map(Some)
        .map_err(|source| Error::StartReceiver {
            listen: Some(listen),
            source,
        })
}

/// Removes what the run created, and says what was left and how long it took.
fn clean_up(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    client: &Arc<Client>,
    timeout: Duration,
) -> crate::cleanup::Summary {
    let cleanup_start = Instant::now();
    let summary = rt.block_on(exec.cleanup.finish(client));
    let cleanup_secs = cleanup_start.elapsed().as_secs_f64();
    crate::output::say(
        client
            .redactor
            .redact(&summary.render())
            .trim_end_matches('\n'),
    );
    if cleanup_secs >= 1.0 || !summary.not_removed.is_empty() {
        crate::output::say(&format!(
            "cleanup took {cleanup_secs:.1} s (bound {} s)",
            crate::cleanup::cleanup_bound(timeout).as_secs_f64()
        ));
    }
    summary
}
