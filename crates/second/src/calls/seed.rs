//! The seeded calls and the profile fixtures they make. OWNER: messaging-calls.

use serde_json::{Map, Value, json};

use super::*;
use crate::directory::{self as dir, Directory};
use crate::messaging::{GROUP_A, GROUP_B, MESSAGE_PARTICIPANT};

const DAY_MIN: i64 = 24 * 60;

struct Seeder {
    inner: Inner,
    now: Ts,
}

/// What a seeded call is.
struct Spec<'a> {
    label: &'a str,
    org: &'a str,
    number: &'a str,
    participants: &'a [&'a str],
    inbound: bool,
    ago_minutes: i64,
    /// Milliseconds of ringing before an answer (or before giving up).
    ring_ms: i64,
    /// Milliseconds of talk; None: not answered.
    talk_ms: Option<i64>,
    user: &'a str,
    status: &'static str,
    route: &'static str,
}

impl Seeder {
    fn call(&mut self, s: Spec<'_>) -> Call {
        let created = self.now - time::Duration::minutes(s.ago_minutes);
        let ms = time::Duration::milliseconds;
        let answered = s.talk_ms.map(|_| created + ms(s.ring_ms));
        let end = created + ms(s.ring_ms + s.talk_ms.unwrap_or(0));
        let seq = self.inner.next_seq();
        Call {
            id: common::seeded_id("AC", &format!("call/{}", s.label), 32),
            org_id: s.org.to_string(),
            phone_number_id: s.number.to_string(),
            user_id: Some(s.user.to_string()),
            participants: s.participants.iter().map(|p| p.to_string()).collect(),
            inbound: s.inbound,
            status: s.status,
            answered_at: answered,
            answered_by: answered.map(|_| s.user.to_string()),
            initiated_by: if s.inbound {
                None
            } else {
                Some(s.user.to_string())
            },
            completed_at: Some(end),
            created,
            updated: end + ms(1_250),
            duration_ms: Some(s.talk_ms.unwrap_or(0)),
            call_route: s.route,
            forwarded_from: None,
            forwarded_to: None,
            ai_agent: None,
            seq,
            recordings: Vec::new(),
            transcript: Vec::new(),
            summary: None,
            voicemail: None,
        }
    }

    /// Recording segments at (offset from the answer, duration) in milliseconds.
    fn record(&mut self, c: &mut Call, segments: &[(i64, i64)]) {
        let answered = c.answered_at.unwrap_or(c.created);
        for (i, (off, dur)) in segments.iter().enumerate() {
            c.recordings.push(Recording {
                id: common::seeded_id("CR", &format!("{}/rec/{i}", c.id), 32),
                start: answered + time::Duration::milliseconds(*off),
                duration_ms: *dur,
                seq: i as u64,
            });
        }
    }

    /// Transcript lines at (offset from the answer, length, speaker, text).
    fn transcribe(&mut self, c: &mut Call, lines: &[(i64, i64, &str, &str)]) {
        let answered = c.answered_at.unwrap_or(c.created);
        for (i, (off, len, who, text)) in lines.iter().enumerate() {
            let start = answered + time::Duration::milliseconds(*off);
            c.transcript.push(Line {
                id: common::seeded_id("TL", &format!("{}/line/{i}", c.id), 20),
                start,
                end: start + time::Duration::milliseconds(*len),
                speaker: who.to_string(),
                content: text.to_string(),
                seq: i as u64,
            });
        }
    }
}

/// The seeded store and its fixtures.
pub(super) fn seed(_directory: &Directory) -> (Inner, Map<String, Value>) {
    let mut s = Seeder {
        inner: Inner {
            calls: Vec::new(),
            seq: 0,
        },
        now: common::now(),
    };
    let (org, num) = (dir::PRIMARY_ORG, dir::MAIN_NUMBER);
    let owner = dir::OWNER_USER;

    // The fixture call: answered by the owner, three recording segments (the call was put on
    // hold twice), a transcript and a summary.
    let mut main = s.call(Spec {
        label: "main",
        org,
        number: num,
        participants: &[CALL_PARTICIPANT],
        inbound: true,
        ago_minutes: 3 * DAY_MIN + 95,
        ring_ms: 9_000,
        talk_ms: Some(266_000),
        user: owner,
        status: "completed",
        route: "direct",
    });
    s.record(
        &mut main,
        &[(0, 95_000), (130_000, 80_000), (230_000, 36_000)],
    );
    s.transcribe(
        &mut main,
        &[
            (
                500,
                4_200,
                owner,
                "Good morning, Harborview Dental, Maya speaking.",
            ),
            (
                5_100,
                7_900,
                CALL_PARTICIPANT,
                "Hi Maya, I chipped a tooth last night and it's sensitive.",
            ),
            (
                13_600,
                6_300,
                owner,
                "I'm sorry to hear that. Let me check today's openings; one moment.",
            ),
            (
                131_000,
                8_800,
                owner,
                "Thanks for holding. Dr. Osei can see you at 1:40 today.",
            ),
            (140_500, 3_100, CALL_PARTICIPANT, "That works, thank you."),
            (
                231_200,
                5_600,
                owner,
                "You're all set. Avoid very cold drinks until then.",
            ),
        ],
    );
    main.summary = Some(Summary {
        points: vec![
            "The caller chipped a tooth and reports sensitivity.".to_string(),
            "An emergency visit with Dr. Osei was booked for 1:40 today.".to_string(),
        ],
        next_steps: vec!["Text the caller a confirmation of today's 1:40 visit.".to_string()],
        completed: main.updated + time::Duration::seconds(40),
    });
    main.updated += time::Duration::seconds(41);

    // A missed call with a voicemail.
    let mut vm = s.call(Spec {
        label: "voicemail",
        org,
        number: num,
        participants: &[CALL_PARTICIPANT],
        inbound: true,
        ago_minutes: 2 * DAY_MIN + 30,
        ring_ms: 27_000,
        talk_ms: None,
        user: owner,
        status: "missed",
        route: "voicemail",
    });
    vm.answered_by = None;
    vm.voicemail = Some(Voicemail {
        duration_ms: 31_000,
        transcript:
            "Hi, it's Jordan again. Could you call me back about the x-ray results? Thanks."
                .to_string(),
        completed: vm.updated + time::Duration::seconds(20),
    });

    // An outbound call with one recording, by the member.
    let mut outbound = s.call(Spec {
        label: "outbound",
        org,
        number: num,
        participants: &[MESSAGE_PARTICIPANT],
        inbound: false,
        ago_minutes: 6 * DAY_MIN + 240,
        ring_ms: 6_000,
        talk_ms: Some(88_000),
        user: dir::MEMBER_USER,
        status: "completed",
        route: "direct",
    });
    s.record(&mut outbound, &[(0, 88_000)]);

    // Forwarded through the phone menu.
    let mut fwd = s.call(Spec {
        label: "forwarded",
        org,
        number: num,
        participants: &["+19175550104"],
        inbound: true,
        ago_minutes: 8 * DAY_MIN + 15,
        ring_ms: 14_000,
        talk_ms: None,
        user: owner,
        status: "forwarded",
        route: "phone-menu",
    });
    fwd.answered_by = None;
    fwd.forwarded_from = Some(owner.to_string());
    fwd.forwarded_to = Some(FORWARD_TARGET.to_string());
    fwd.duration_ms = Some(14_000);

    // Handled by the AI agent, with a summary.
    let mut ai = s.call(Spec {
        label: "ai",
        org,
        number: num,
        participants: &["+13475550168"],
        inbound: true,
        ago_minutes: DAY_MIN + 400,
        ring_ms: 3_000,
        talk_ms: Some(71_000),
        user: owner,
        status: "completed",
        route: "ai-agent",
    });
    ai.answered_by = None;
    ai.ai_agent = Some(AI_AGENT.to_string());
    ai.summary = Some(Summary {
        points: vec![
            "The caller asked for the office hours on Saturday; the agent answered 9am to 1pm."
                .to_string(),
        ],
        next_steps: Vec::new(),
        completed: ai.updated + time::Duration::seconds(25),
    });

    // A group (conference) call.
    let mut group = s.call(Spec {
        label: "group",
        org,
        number: num,
        participants: &[GROUP_A, GROUP_B],
        inbound: false,
        ago_minutes: 4 * DAY_MIN + 50,
        ring_ms: 5_000,
        talk_ms: Some(152_000),
        user: owner,
        status: "completed",
        route: "direct",
    });
    s.record(&mut group, &[(0, 152_000)]);

    // An abandoned call (hung up while ringing).
    let abandoned = s.call(Spec {
        label: "abandoned",
        org,
        number: num,
        participants: &[CALL_PARTICIPANT],
        inbound: true,
        ago_minutes: 12 * DAY_MIN,
        ring_ms: 4_000,
        talk_ms: None,
        user: owner,
        status: "abandoned",
        route: "direct",
    });

    // Other numbers and workspaces.
    let second = s.call(Spec {
        label: "second",
        org,
        number: dir::SECOND_NUMBER,
        participants: &["+14085550163"],
        inbound: true,
        ago_minutes: 11 * DAY_MIN + 70,
        ring_ms: 8_000,
        talk_ms: Some(45_000),
        user: dir::RESTRICTED_USER,
        status: "completed",
        route: "direct",
    });
    let intl = s.call(Spec {
        label: "intl-org",
        org: dir::INTL_DISABLED_ORG,
        number: dir::INTL_DISABLED_NUMBER,
        participants: &["+13125550190"],
        inbound: true,
        ago_minutes: 5 * DAY_MIN,
        ring_ms: 6_000,
        talk_ms: Some(120_000),
        user: dir::INTL_DISABLED_USER,
        status: "completed",
        route: "direct",
    });

    let mut f = Map::new();
    f.insert("call_id".into(), json!(main.id));
    f.insert("call_participant".into(), json!(CALL_PARTICIPANT));
    f.insert("call_status".into(), json!(main.status));
    f.insert("voicemail_call_id".into(), json!(vm.id));
    f.insert("summary_call_id".into(), json!(main.id));
    for c in [main, vm, outbound, fwd, ai, group, abandoned, second, intl] {
        s.inner.calls.push(c);
    }
    (s.inner, f)
}
