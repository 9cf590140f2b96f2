//! The seeded messages and conversations, and the profile fixtures they make. OWNER:
//! messaging-calls.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::common::{self, Ts};
use super::*;
use crate::directory::{self as dir, Directory};

struct Seeder {
    inner: Inner,
    now: Ts,
}

/// One seeded message.
struct M<'a> {
    label: &'a str,
    ago_minutes: i64,
    inbound_from: Option<&'a str>,
    user: Option<&'a str>,
    text: &'a str,
    status: Status,
    media: Option<(&'a str, &'a str)>,
    failure: Option<Failure>,
}

fn out<'a>(label: &'a str, ago_minutes: i64, user: &'a str, text: &'a str) -> M<'a> {
    M {
        label,
        ago_minutes,
        inbound_from: None,
        user: Some(user),
        text,
        status: Status::Delivered,
        media: None,
        failure: None,
    }
}

fn inb<'a>(label: &'a str, ago_minutes: i64, from: &'a str, text: &'a str) -> M<'a> {
    M {
        label,
        ago_minutes,
        inbound_from: Some(from),
        user: None,
        text,
        status: Status::Received,
        media: None,
        failure: None,
    }
}

const DAY: i64 = 24 * 60;

impl Seeder {
    fn at(&self, ago_minutes: i64) -> Ts {
        self.now - time::Duration::minutes(ago_minutes)
    }

    /// A conversation with its messages (oldest first); returns its id and its messages' ids.
    #[allow(clippy::too_many_arguments)]
    fn conversation(
        &mut self,
        label: &str,
        org_id: &str,
        number_id: &str,
        number_e164: &str,
        participants: &[&str],
        name: Option<&str>,
        assigned_to: Option<&str>,
        done: bool,
        unread: u32,
        messages: Vec<M<'_>>,
    ) -> (String, Vec<String>) {
        let id = common::seeded_id("CN", label, 22);
        let first = messages.iter().map(|m| m.ago_minutes).max().unwrap_or(DAY);
        let created = self.at(first + 7);
        let seq = self.inner.next_seq();
        let mut conv = Conversation {
            id: id.clone(),
            org_id: org_id.to_string(),
            phone_number_id: number_id.to_string(),
            participants: participants.iter().map(|p| p.to_string()).collect(),
            name: name.map(str::to_string),
            assigned_to: assigned_to.map(str::to_string),
            created,
            updated: created,
            deleted_at: None,
            last_activity_at: None,
            last_activity_id: None,
            muted_until: None,
            snoozed_until: None,
            done,
            unread,
            seq,
        };
        let mut ids = Vec::new();
        for m in messages {
            let at = self.at(m.ago_minutes);
            let mid = common::seeded_id("AC", &format!("{label}/{}", m.label), 30);
            let (from, to, direction) = match m.inbound_from {
                Some(f) => {
                    let mut to = vec![number_e164.to_string()];
                    to.extend(
                        participants
                            .iter()
                            .filter(|p| **p != f)
                            .map(|p| p.to_string()),
                    );
                    (f.to_string(), to, Direction::Inbound)
                }
                None => (
                    number_e164.to_string(),
                    participants.iter().map(|p| p.to_string()).collect(),
                    Direction::Outbound,
                ),
            };
            let settled = if direction == Direction::Outbound {
                at + time::Duration::milliseconds(2_350)
            } else {
                at
            };
            let seq = self.inner.next_seq();
            self.inner.messages.push(Message {
                id: mid.clone(),
                org_id: org_id.to_string(),
                phone_number_id: number_id.to_string(),
                conversation_id: id.clone(),
                from,
                to,
                text: m.text.to_string(),
                direction,
                user_id: m.user.map(str::to_string),
                status: m.status,
                created: at,
                updated: settled,
                seq,
                media: m
                    .media
                    .iter()
                    .map(|(u, t)| (u.to_string(), t.to_string()))
                    .collect(),
                failure: m.failure,
                attempts: if direction == Direction::Outbound {
                    1
                } else {
                    0
                },
            });
            conv.last_activity_at = Some(at);
            conv.last_activity_id = Some(mid.clone());
            conv.updated = settled.max(conv.updated);
            ids.push(mid);
        }
        self.inner.conversations.push(conv);
        (id, ids)
    }
}

/// The seeded store and its fixtures.
pub(super) fn seed(_directory: &Directory) -> (Inner, Map<String, Value>) {
    let mut s = Seeder {
        inner: Inner {
            messages: Vec::new(),
            conversations: Vec::new(),
            seq: 0,
            sends: HashMap::new(),
        },
        now: common::now(),
    };
    let (o, mem) = (dir::OWNER_USER, dir::MEMBER_USER);
    let (org, num, e164) = (dir::PRIMARY_ORG, dir::MAIN_NUMBER, dir::MAIN_E164);

    // The one-to-one conversation of `message_participant`: messages before and after the split
    // (10 days ago), one with media.
    let (one_to_one, one_ids) = s.conversation(
        "one-to-one",
        org,
        num,
        e164,
        &[MESSAGE_PARTICIPANT],
        None,
        Some(o),
        false,
        1,
        vec![
            inb(
                "m1",
                20 * DAY,
                MESSAGE_PARTICIPANT,
                "Hi, is Dr. Osei taking new patients this spring?",
            ),
            out(
                "m2",
                20 * DAY - 14,
                o,
                "She is! Would a Tuesday morning work for a first visit?",
            ),
            M {
                media: Some((
                    "https://media.second.example/mms/7Qd2Lx/insurance-card.jpg",
                    "image/jpeg",
                )),
                ..inb(
                    "m3",
                    16 * DAY,
                    MESSAGE_PARTICIPANT,
                    "Tuesday works. Here is my insurance card.",
                )
            },
            out(
                "m4",
                13 * DAY,
                mem,
                "Thanks, we have it on file. You're booked for Tuesday at 9:30.",
            ),
            inb(
                "m5",
                7 * DAY,
                MESSAGE_PARTICIPANT,
                "Could we move it to 10:15?",
            ),
            out("m6", 7 * DAY - 31, o, "Done: Tuesday 10:15."),
            out(
                "m7",
                DAY + 120,
                mem,
                "Reminder: your visit is tomorrow at 10:15.",
            ),
            inb("m8", 180, MESSAGE_PARTICIPANT, "See you then!"),
        ],
    );
    let media_id = one_ids[2].clone();
    let split = common::fmt(s.at(10 * DAY));

    // The group conversation and its superset.
    let (group, _) = s.conversation(
        "group",
        org,
        num,
        e164,
        &[GROUP_A, GROUP_B],
        Some("Carpool parents"),
        None,
        false,
        1,
        vec![
            out(
                "g1",
                9 * DAY,
                o,
                "Both kids' cleanings are confirmed for Friday at 3pm.",
            ),
            inb("g2", 8 * DAY + 300, GROUP_A, "Great, I'll drive them."),
            inb(
                "g3",
                2 * DAY,
                GROUP_B,
                "Can we add a fluoride treatment for Sam?",
            ),
        ],
    );
    let (_superset, _) = s.conversation(
        "superset",
        org,
        num,
        e164,
        &[GROUP_A, GROUP_B, GROUP_C],
        Some("Carpool parents + grandma"),
        None,
        false,
        0,
        vec![
            out(
                "s1",
                6 * DAY,
                mem,
                "The office is closed Monday for the holiday.",
            ),
            inb("s2", 5 * DAY + 44, GROUP_C, "Thanks for letting us know."),
        ],
    );

    // Inactive: nothing for over 200 days (and marked done).
    let (inactive, _) = s.conversation(
        "inactive",
        org,
        num,
        e164,
        &[INACTIVE_PARTICIPANT],
        None,
        None,
        true,
        0,
        vec![
            inb(
                "i1",
                241 * DAY,
                INACTIVE_PARTICIPANT,
                "Do you take walk-ins?",
            ),
            out(
                "i2",
                240 * DAY,
                o,
                "We don't, but we have openings Thursday.",
            ),
        ],
    );

    // The sandbox conversation: open and read.
    let (sandbox, _) = s.conversation(
        "sandbox",
        org,
        num,
        e164,
        &[SANDBOX_PARTICIPANT],
        None,
        None,
        false,
        0,
        vec![
            inb(
                "x1",
                5 * DAY,
                SANDBOX_PARTICIPANT,
                "Testing the front desk line.",
            ),
            out("x2", 5 * DAY - 3, o, "Received, thanks!"),
        ],
    );

    // The conversation tasks may link.
    let (task_conv, _) = s.conversation(
        "task",
        org,
        num,
        e164,
        &[TASK_PARTICIPANT],
        None,
        Some(mem),
        false,
        1,
        vec![inb(
            "t1",
            DAY - 90,
            TASK_PARTICIPANT,
            "Please send my x-rays to Dr. Haddad.",
        )],
    );

    // Failed messages that may be retried (the recipient is a landline: each retry fails again).
    let failed = |label: &'static str, ago: i64, text: &'static str| M {
        status: Status::Failed,
        failure: Some(F_UNREACHABLE),
        ..out(label, ago, o, text)
    };
    let (_, failed_ids) = s.conversation(
        "failed",
        org,
        num,
        e164,
        &[UNREACHABLE[0]],
        None,
        None,
        false,
        0,
        vec![
            failed(
                "f1",
                3 * DAY + 60,
                "Your crown is ready; please call to book a fitting.",
            ),
            failed("f2", 3 * DAY, "Second try: your crown is ready."),
            failed("f3", 2 * DAY + 200, "Please call us about your crown."),
            failed("f4", 2 * DAY, "Last reminder about your crown."),
            failed(
                "f5",
                DAY + 400,
                "Your crown fitting: please call the office.",
            ),
        ],
    );
    let (_, perm_ids) = s.conversation(
        "permanent",
        org,
        num,
        e164,
        &[UNALLOCATED[0]],
        None,
        None,
        true,
        0,
        vec![M {
            status: Status::Failed,
            failure: Some(F_UNALLOCATED),
            ..out("p1", 4 * DAY, o, "Welcome to Harborview Dental!")
        }],
    );
    let (_, undel_ids) = s.conversation(
        "undelivered",
        org,
        num,
        e164,
        &[BLOCKED[0]],
        None,
        None,
        true,
        0,
        vec![M {
            status: Status::Undelivered,
            failure: Some(F_BLOCKED),
            ..out(
                "u1",
                4 * DAY - 90,
                o,
                "Spring whitening special: 20% off this month.",
            )
        }],
    );

    // The other party of the seeded calls also texted.
    s.conversation(
        "call-party",
        org,
        num,
        e164,
        &[super::super::calls::CALL_PARTICIPANT],
        None,
        None,
        false,
        0,
        vec![
            out(
                "c1",
                15 * DAY,
                o,
                "Sorry we missed your call; how can we help?",
            ),
            inb(
                "c2",
                15 * DAY - 12,
                super::super::calls::CALL_PARTICIPANT,
                "I'll call back later.",
            ),
        ],
    );

    // Other numbers and workspaces.
    s.conversation(
        "second",
        org,
        dir::SECOND_NUMBER,
        dir::SECOND_E164,
        &["+14085550163"],
        None,
        Some(dir::RESTRICTED_USER),
        false,
        0,
        vec![
            inb("b1", 11 * DAY, "+14085550163", "Is my balance paid off?"),
            out(
                "b2",
                11 * DAY - 25,
                dir::RESTRICTED_USER,
                "Yes, your balance is zero.",
            ),
        ],
    );
    s.conversation(
        "intl-org",
        dir::INTL_DISABLED_ORG,
        dir::INTL_DISABLED_NUMBER,
        dir::INTL_DISABLED_E164,
        &["+13125550190"],
        None,
        None,
        false,
        1,
        vec![inb(
            "l1",
            3 * DAY,
            "+13125550190",
            "The sink in 4B is leaking again.",
        )],
    );
    s.conversation(
        "expired-org",
        dir::EXPIRED_ORG,
        dir::EXPIRED_NUMBER,
        dir::EXPIRED_E164,
        &["+12065550191"],
        None,
        None,
        false,
        0,
        vec![out(
            "e1",
            100 * DAY,
            dir::EXPIRED_USER,
            "Your spring cleanup is scheduled for Monday.",
        )],
    );

    let group_recipients: Vec<String> = (124..=126).map(|n| format!("+1718555{n:04}")).collect();
    let eleven: Vec<String> = (130..=140).map(|n| format!("+1718555{n:04}")).collect();
    let mut f = Map::new();
    f.insert("message_direction".into(), json!("outbound"));
    f.insert("message_participant".into(), json!(MESSAGE_PARTICIPANT));
    f.insert("message_time_split".into(), json!(split));
    f.insert("conversation_id".into(), json!(one_to_one));
    f.insert("group_participants".into(), json!([GROUP_A, GROUP_B]));
    f.insert("group_conversation_id".into(), json!(group));
    f.insert(
        "group_superset_participants".into(),
        json!([GROUP_A, GROUP_B, GROUP_C]),
    );
    f.insert("inactive_conversation_id".into(), json!(inactive));
    f.insert("sandbox_conversation_id".into(), json!(sandbox));
    f.insert(
        "sandbox_conversation_participant".into(),
        json!(SANDBOX_PARTICIPANT),
    );
    f.insert("sandbox_failed_message_id".into(), json!(failed_ids));
    f.insert("permanent_failed_message_id".into(), json!(perm_ids[0]));
    f.insert("undelivered_message_id".into(), json!(undel_ids[0]));
    f.insert("media_message_id".into(), json!(media_id));
    f.insert(
        "conversations_exclude_inactive_param".into(),
        json!(conversations::EXCLUDE_INACTIVE_PARAM),
    );
    f.insert(
        "conversations_updated_after_param".into(),
        json!(conversations::UPDATED_AFTER_PARAM),
    );
    f.insert(
        "conversations_updated_before_param".into(),
        json!(conversations::UPDATED_BEFORE_PARAM),
    );
    f.insert("sandbox_recipient_number".into(), json!(SANDBOX_RECIPIENT));
    f.insert(
        "sandbox_group_recipient_numbers".into(),
        json!(group_recipients),
    );
    f.insert("sandbox_eleven_recipient_numbers".into(), json!(eleven));
    f.insert(
        "sandbox_international_number".into(),
        json!(SANDBOX_INTERNATIONAL),
    );
    f.insert("task_conversation_id".into(), json!(task_conv));
    (s.inner, f)
}
