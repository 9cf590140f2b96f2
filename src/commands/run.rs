//! A certification run, the default command: the arguments checked, the target reached and its
//! keys checked, the trials run, the reports written, what the run created removed.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cli::RunArgs;
use crate::error::Error;
use conformance_suite::client::Client;
use conformance_suite::execute::{Executor, RunSetup};
use conformance_suite::plan::{self, Recorder};
use conformance_suite::webhooks::Receiver;

use super::checked::RunPlan;
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
    let json_events = args.test.json();
    let plan = RunPlan::check(args, key_from_env)?;
    if json_events {
        // stdout carries libtest's JSON events only.
        crate::output::lines_to_stderr();
    }
    certify(plan)
}

/// `--list-fixtures`: the fixtures a profile may name, as lines or (`--markdown`) the README's
/// table.
fn list_fixtures(args: &RunArgs) -> Result<ExitCode, Error> {
    let text = if args.markdown {
        conformance_contract::profile::fixture_table()
    } else {
        conformance_contract::profile::fixture_lines()
    };
    print!("{}", text?);
    Ok(ExitCode::SUCCESS)
}

/// The run of a checked plan: the target reached (or only listed, with `--list`), the trials
/// run, the verdict said, the reports written before and after the cleanup.
fn certify(plan: RunPlan) -> Result<ExitCode, Error> {
    let rt = connection::runtime()?;
    let target = Target::start(plan.target.clone(), &rt)?;
    let client = target.client(&plan)?;
    if plan.har.is_some() {
        // The HAR holds every request the run sends, the preflight's first.
        client.keep_every_exchange();
    }
    let (profile, discovery) = if plan.listing {
        (target.profile.clone(), None)
    } else {
        target.prepare(&rt, &client, &plan)?
    };
    let receiver = start_receiver(&plan, &rt)?;
    if let Some(r) = receiver.as_ref().filter(|_| plan.har.is_some()) {
        // The HAR holds every delivery the receiver heard.
        r.keep_every_delivery();
    }
    // Where each fixture came from, for the reports.
    let fixture_sources = reports::fixture_sources(&plan, &profile, discovery.as_ref());
    let exec = Arc::new(Executor::new(RunSetup {
        contract: plan.contract.clone(),
        client: client.clone(),
        profile,
        run_id: plan.run_id.clone(),
        seed: plan.seed,
        property_cases: plan.property_cases,
        sequence_depth: plan.sequence_depth,
        far: !plan.embedded(),
        receiver,
        missing_reasons: discovery
            .as_ref()
            .map(|d| d.missing_reasons())
            .unwrap_or_default(),
        rules: Default::default(),
    }));
    let recorder = Arc::new(Recorder::default());
    let trials = plan::trials(
        &plan.cases,
        &plan.chosen,
        exec.clone(),
        rt.handle().clone(),
        recorder.clone(),
    );
    let signals = Signals::new();
    if !plan.listing {
        let what = if plan.embedded() {
            format!("the embedded reference at {}", target.base_url)
        } else {
            target.base_url.clone()
        };
        crate::output::say(&format!(
            "certifying {what} (run {}, seed {}, {} trials)",
            plan.run_id,
            plan.seed,
            plan.chosen.len()
        ));
        signals.handle(&rt, &exec);
    }
    let started = time::OffsetDateTime::now_utc();
    let start = Instant::now();
    let (progress, libtest) = watch(&plan, &recorder, &client);
    let first_of_trials = client.request_count() + 1;
    let conclusion = libtest_mimic::run(&libtest, trials);
    let last_of_trials = client.request_count();
    progress.finish();
    if plan.listing {
        return Ok(ExitCode::SUCCESS);
    }
    let results = recorder.take();
    let interrupted = exec.cleanup().is_interrupted();
    let reports = Reports {
        plan: &plan,
        base_url: &target.base_url,
        fixture_sources: &fixture_sources,
        started,
        start,
        client: &client,
        exec: &exec,
        results: &results,
    };
    // The reports exist before the cleanup, which a silent target or a kill can cut short; they
    // list what is still registered as not removed, and are rewritten once the cleanup is done.
    reports.write(&reports.model(&exec.cleanup().pending_summary()))?;
    signals.cleaning();
    let ignored = verdict::ignored_lines(&results, interrupted);
    if !ignored.is_empty() {
        crate::output::say(&ignored);
    }
    let summary = clean_up(&rt, &exec, &client, plan.timeout, plan.verbose);
    signals.rewriting();
    // One model after the cleanup: the request count of the terminal is the reports' (every
    // request of the run, the cleanup's included).
    let model = reports.model(&summary);
    if plan.outputs.any() {
        reports.write(&model)?;
    }
    if let Some(har) = &plan.har {
        let sent = client.exchanges();
        let (heard, _) = exec.receiver().map(|r| r.heard()).unwrap_or_default();
        let traffic = conformance_suite::report::har::Traffic {
            sent: &sent,
            heard: &heard,
            receiver: exec.receiver().map_or("", |r| r.public_base()),
            trials: first_of_trials..=last_of_trials,
        };
        let text = conformance_suite::report::har::render(
            &results,
            &model,
            &traffic,
            &client.redactor,
            har.failed_only,
        );
        super::reports::write_whole(&har.path, &text)?;
    }
    let script = reports::write_reproductions(&plan, &model)?;
    if let Some(rerun) = &plan.rerun {
        let in_catalog = |t: &str| plan.catalog_names.contains(t);
        crate::output::say(&rerun.lines(&model, &in_catalog));
    }
    let sent = verdict::Sent {
        requests: model.requests,
        elapsed: start.elapsed(),
    };
    // The tail of a CI log, which a 24-row screen shows whole: the requests, the defects, and
    // the verdict last.
    verdict::say_verdict(
        plan.require_complete,
        &sent,
        &model,
        &results,
        interrupted,
        script.as_deref(),
    );
    Ok(verdict::exit_code(
        plan.require_complete,
        &results,
        interrupted,
        signals.code(),
        &conclusion,
    ))
}

/// Starts showing the run's progress, and gives libtest's arguments for it: a live line on a
/// terminal puts stdout through the forwarder, so libtest's colours are asked for explicitly.
fn watch(
    plan: &RunPlan,
    recorder: &Arc<Recorder>,
    client: &Arc<Client>,
) -> (Progress, libtest_mimic::Arguments) {
    use libtest_mimic::ColorSetting;
    let mut libtest = plan.libtest.clone();
    if plan.progress == progress::Mode::Bar
        && matches!(libtest.color, None | Some(ColorSetting::Auto))
        && crate::output::through_forwarder()
    {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        libtest.color = Some(if no_color {
            ColorSetting::Never
        } else {
            ColorSetting::Always
        });
    }
    let progress = Progress::start(
        plan.progress,
        plan.chosen.len(),
        recorder.clone(),
        client.clone(),
    );
    (progress, libtest)
}

/// The webhook receiver, started once when a chosen case needs it (never for `--list`).
fn start_receiver(
    plan: &RunPlan,
    rt: &tokio::runtime::Runtime,
) -> Result<Option<Arc<Receiver>>, Error> {
    let needed = plan
        .cases
        .iter()
        .any(|c| c.uses_receiver && plan.chosen.contains(&c.name));
    if plan.listing || !needed {
        return Ok(None);
    }
    let listen = plan
        .webhook_listen
        .unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    rt.block_on(Receiver::start(listen, plan.webhook_url.as_deref()))
        .map(Some)
        .map_err(|source| Error::StartReceiver {
            listen: Some(listen),
            source,
        })
}

/// Removes what the run created, and says so in one line (the listing with `--verbose`; the
/// reports list it always).
fn clean_up(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    client: &Arc<Client>,
    timeout: Duration,
    verbose: bool,
) -> conformance_suite::results::Summary {
    let cleanup_start = Instant::now();
    let summary = rt.block_on(exec.cleanup().finish(client));
    let cleanup_secs = cleanup_start.elapsed().as_secs_f64();
    let took = if cleanup_secs >= 1.0 || !summary.not_removed.is_empty() {
        format!(
            " in {cleanup_secs:.1} s (bound {} s)",
            conformance_suite::cleanup::cleanup_bound(timeout).as_secs_f64()
        )
    } else {
        String::new()
    };
    let text = if verbose {
        summary.render()
    } else {
        summary.line()
    };
    let mut lines = text.trim_end_matches('\n').lines();
    let first = lines.next().unwrap_or_default();
    let mut out = format!("{first}{took}");
    for l in lines {
        out.push('\n');
        out.push_str(l);
    }
    crate::output::say(&client.redactor.redact(&out));
    summary
}
