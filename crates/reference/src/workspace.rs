//! The read side of the workspace: users, phone numbers with their users and restrictions, calls
//! with recordings, transcripts, summaries and voicemails, and the organization. Seeded, fixed,
//! only read by the API (`GET /phone-numbers/available` searches and never buys).

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

use super::model::timestamp;

/// Ids and numbers the profile names (see `fixtures::profile`).
pub(crate) const CALL_ID: &str = "ACc4ll0000000001";
pub(crate) const VOICEMAIL_CALL_ID: &str = "ACc4ll0000000003";
pub(crate) const CALL_PARTICIPANT: &str = "+14155550199";
pub(crate) const AVAILABLE_COUNTRY: &str = "US";
/// A workspace number both seeded users are on.
pub(crate) const SHARED_NUMBER_ID: &str = "PNs8h4r3d0n2";
const SHARED_NUMBER: &str = "+14155550124";
const TOLL_FREE_NUMBER_ID: &str = "PNt0ll5fr3e9";
const THIRD_USER: &str = "USm3n4p5q6r7";

/// A user of the workspace.
#[derive(Debug, Clone)]
pub(crate) struct User {
    pub id: String,
    pub json: Value,
}

/// A workspace phone number: its users decide who may see its calls.
#[derive(Debug, Clone)]
pub(crate) struct PhoneNumber {
    pub id: String,
    pub number: String,
    pub users: Vec<String>,
    pub name: String,
    pub restrictions: Value,
    pub created_at: OffsetDateTime,
}

/// A call with what hangs off it.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub id: String,
    pub phone_number_id: String,
    pub participants: Vec<String>,
    pub user_id: String,
    pub created_at: OffsetDateTime,
    /// Every other field of the answer (`id`, `phoneNumberId`, `participants`, `userId`,
    /// `createdAt` are added when rendered).
    pub fields: Value,
    pub summary: Option<Value>,
    pub voicemail: Option<Value>,
    /// Recording segments, oldest first.
    pub recordings: Vec<Value>,
    /// Transcript segments, in order of occurrence.
    pub transcripts: Vec<Value>,
}

/// The read side of the workspace.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    pub users: Vec<User>,
    pub numbers: Vec<PhoneNumber>,
    /// Oldest first.
    pub calls: Vec<Call>,
    pub organization: Value,
}

impl Workspace {
    pub fn user(&self, id: &str) -> Option<&User> {
        self.users.iter().find(|u| u.id == id)
    }

    pub fn number(&self, id: &str) -> Option<&PhoneNumber> {
        self.numbers.iter().find(|n| n.id == id)
    }

    pub fn call(&self, id: &str) -> Option<&Call> {
        self.calls.iter().find(|c| c.id == id)
    }

    /// Whether `user` is a user of the number of `phone_number_id` (the number-scoped check).
    pub(crate) fn is_number_user(&self, phone_number_id: &str, user: &str) -> bool {
        self.number(phone_number_id)
            .is_some_and(|n| n.users.iter().any(|u| u == user))
    }
}

impl PhoneNumber {
    /// The header-versioned answer; `restrictions` only when asked (`include=restrictions`).
    pub fn to_json(&self, restrictions: bool, number_field: &str) -> Value {
        let mut v = json!({
            "id": self.id,
            number_field: self.number,
            "name": self.name,
            "userIds": self.users,
            "createdAt": timestamp(self.created_at),
            "updatedAt": timestamp(self.created_at),
        });
        if restrictions {
            v["restrictions"] = self.restrictions.clone();
        }
        v
    }
}

impl Call {
    /// The answer; `summary` and `voicemail` only when asked and present.
    pub fn to_json(&self, summary: bool, voicemail: bool, id_prefix: &str) -> Value {
        let id = match self.id.strip_prefix("AC") {
            Some(rest) => format!("{id_prefix}{rest}"),
            None => self.id.clone(),
        };
        let mut v = json!({
            "id": id,
            "phoneNumberId": self.phone_number_id,
            "userId": self.user_id,
            "participants": self.participants,
        });
        if let (Some(obj), Some(fields)) = (v.as_object_mut(), self.fields.as_object()) {
            for (k, f) in fields {
                obj.insert(k.clone(), f.clone());
            }
            obj.insert("createdAt".into(), json!(timestamp(self.created_at)));
        }
        if summary {
            if let Some(s) = &self.summary {
                v["summary"] = s.clone();
            }
        }
        if voicemail {
            if let Some(s) = &self.voicemail {
                v["voicemail"] = s.clone();
            }
        }
        v
    }
}

fn ts(t: OffsetDateTime) -> Value {
    json!(timestamp(t))
}

/// The seeded workspace. `owner`, `member` and the numbers come from the profile's fixtures.
pub(crate) fn seed(
    owner: &str,
    member: &str,
    org_id: &str,
    number_id: &str,
    number: &str,
) -> Workspace {
    let joined = datetime!(2026-01-02 09:00 UTC);
    let users = [
        (owner, "owner", "Olivia", "Owner"),
        (member, "member", "Marc", "Member"),
        (THIRD_USER, "admin", "Ada", "Admin"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (id, role, first, last))| User {
        id: id.to_string(),
        json: json!({
            "id": id,
            "email": format!("{}@workspace.example", first.to_lowercase()),
            "firstName": first,
            "lastName": last,
            "pictureUrl": format!("https://cdn.workspace.example/u/{id}.png"),
            "role": role,
            "createdAt": timestamp(joined + time::Duration::days(i as i64)),
            "updatedAt": timestamp(joined + time::Duration::days(i as i64 + 10)),
        }),
    })
    .collect();
    let restrictions = |intl: bool| {
        json!({
            "calling": { "international": intl, "premium": false },
            "messaging": { "international": intl },
        })
    };
    let numbers = vec![
        PhoneNumber {
            id: number_id.to_string(),
            number: number.to_string(),
            users: vec![owner.to_string()],
            name: "Main line".into(),
            restrictions: restrictions(false),
            created_at: datetime!(2026-01-03 10:00 UTC),
        },
        PhoneNumber {
            id: SHARED_NUMBER_ID.to_string(),
            number: SHARED_NUMBER.to_string(),
            users: vec![owner.to_string(), member.to_string()],
            name: "Support".into(),
            restrictions: restrictions(true),
            created_at: datetime!(2026-01-04 10:00 UTC),
        },
        PhoneNumber {
            id: TOLL_FREE_NUMBER_ID.to_string(),
            number: "+18005550100".into(),
            users: vec![owner.to_string(), THIRD_USER.to_string()],
            name: "Toll free".into(),
            restrictions: restrictions(false),
            created_at: datetime!(2026-01-05 10:00 UTC),
        },
    ];
    let calls = seed_calls(owner, member, number_id);
    Workspace {
        users,
        numbers,
        calls,
        organization: json!({
            "id": org_id,
            "name": "Workspace Example Inc",
            "subscriptionStatus": "active",
            "createdAt": "2026-01-01T08:00:00.000Z",
            "updatedAt": "2026-01-20T08:00:00.000Z",
        }),
    }
}

/// The organization of `workspace`: the seeded one for the primary workspace (its subscription
/// expired when `own_expired`), one of its own for each other workspace of the messaging seed.
pub(crate) fn organization_of(
    primary: &Value,
    workspace: crate::messaging::Workspace,
    own_expired: bool,
) -> Value {
    use crate::messaging::Workspace as W;
    let (id, name, status) = match workspace {
        W::Primary if own_expired => {
            let mut org = primary.clone();
            org["subscriptionStatus"] = json!("expired");
            return org;
        }
        W::Primary => return primary.clone(),
        W::InternationalDisabled => ("OR1ntl0ff3a9", "Domestic Only Ltd", "active"),
        W::SubscriptionExpired => ("ORl4ps3dx7q2", "Lapsed Account Co", "expired"),
    };
    json!({
        "id": id,
        "name": name,
        "subscriptionStatus": status,
        "createdAt": "2026-01-01T08:00:00.000Z",
        "updatedAt": "2026-01-20T08:00:00.000Z",
    })
}

impl Workspace {
    /// The seeded calls with `number` as their other party in place of [`CALL_PARTICIPANT`]
    /// (the profile variant `shared-numbers`: one number for several fixtures).
    pub(crate) fn with_call_participant(mut self, number: &str) -> Workspace {
        let swap = |v: &mut Value| {
            if v.as_str() == Some(CALL_PARTICIPANT) {
                *v = json!(number);
            }
        };
        for call in &mut self.calls {
            for p in &mut call.participants {
                if p == CALL_PARTICIPANT {
                    *p = number.to_string();
                }
            }
            if let Some(fields) = call.fields.as_object_mut() {
                fields.values_mut().for_each(swap);
            }
            for t in &mut call.transcripts {
                if let Some(speaker) = t.get_mut("speaker") {
                    swap(speaker);
                }
            }
        }
        self
    }
}

fn seed_calls(owner: &str, member: &str, number_id: &str) -> Vec<Call> {
    let base =
        |id: &str, pn: &str, who: &str, user: &str, at: OffsetDateTime, fields: Value| Call {
            id: id.to_string(),
            phone_number_id: pn.to_string(),
            participants: vec![who.to_string()],
            user_id: user.to_string(),
            created_at: at,
            fields,
            summary: None,
            voicemail: None,
            recordings: Vec::new(),
            transcripts: Vec::new(),
        };
    let t1 = datetime!(2026-02-02 10:00 UTC);
    let mut answered = base(
        CALL_ID,
        number_id,
        CALL_PARTICIPANT,
        owner,
        t1,
        json!({
            "direction": "outgoing", "status": "completed", "initiatedBy": owner,
            "answeredAt": ts(t1 + time::Duration::seconds(5)), "answeredBy": owner,
            "completedAt": ts(t1 + time::Duration::seconds(600)), "updatedAt": ts(t1 + time::Duration::seconds(600)),
            "duration": 595, "callRoute": "direct", "aiHandled": null,
        }),
    );
    answered.recordings = [(5, 170), (180, 270), (450, 150)]
        .iter()
        .enumerate()
        .map(|(i, (offset, duration))| {
            json!({
                "id": format!("CRr3c0rd00000{}", i + 1),
                "duration": duration,
                "startTime": ts(t1 + time::Duration::seconds(*offset)),
                "status": "completed",
                "type": "audio/mpeg",
                "url": format!("https://media.workspace.example/recordings/{CALL_ID}/{}.mp3", i + 1),
            })
        })
        .collect();
    answered.transcripts = [
        "Hello, this is Olivia.",
        "Hi, calling about my order.",
        "Let me check.",
        "Thanks, bye.",
    ]
    .iter()
    .enumerate()
    .map(|(i, text)| {
        json!({
            "id": format!("tr{}", i + 1),
            "speaker": if i % 2 == 0 { owner.to_string() } else { CALL_PARTICIPANT.to_string() },
            "text": text,
            "startTime": ts(t1 + time::Duration::seconds(5 + 40 * i as i64)),
        })
    })
    .collect();
    answered.summary = Some(json!({ "text": "Customer asked about an order; resolved." }));
    let t2 = datetime!(2026-02-03 09:00 UTC);
    let missed = base(
        "ACc4ll0000000002",
        number_id,
        CALL_PARTICIPANT,
        owner,
        t2,
        json!({ "direction": "incoming", "status": "missed", "completedAt": ts(t2 + time::Duration::seconds(30)), "duration": 0 }),
    );
    let t3 = datetime!(2026-02-04 15:30 UTC);
    let mut voicemail = base(
        VOICEMAIL_CALL_ID,
        number_id,
        CALL_PARTICIPANT,
        owner,
        t3,
        json!({ "direction": "incoming", "status": "completed", "callRoute": "voicemail", "completedAt": ts(t3 + time::Duration::seconds(75)), "duration": 75 }),
    );
    voicemail.voicemail = Some(json!({
        "url": format!("https://media.workspace.example/voicemails/{VOICEMAIL_CALL_ID}.mp3"),
        "duration": 42,
        "transcript": "Please call me back about the invoice.",
    }));
    // A voicemail without an AI summary, as a real workspace often has: the summary fixture is
    // another call (`summary_call_id`, the answered call).
    let t4 = datetime!(2026-02-05 11:00 UTC);
    let forwarded = base(
        "ACc4ll0000000004",
        number_id,
        "+14155550177",
        owner,
        t4,
        json!({ "direction": "incoming", "status": "completed", "callRoute": "forwarded", "forwardedFrom": owner, "forwardedTo": "+14155550166", "duration": 120 }),
    );
    let t5 = datetime!(2026-02-06 08:45 UTC);
    let ai = base(
        "ACc4ll0000000005",
        number_id,
        "+14155550177",
        owner,
        t5,
        json!({ "direction": "incoming", "status": "completed", "aiHandled": "ai-agent", "duration": 200 }),
    );
    let t6 = datetime!(2026-02-07 13:00 UTC);
    let shared_out = base(
        "ACc4ll0000000006",
        SHARED_NUMBER_ID,
        "+14155550188",
        member,
        t6,
        json!({ "direction": "outgoing", "status": "completed", "initiatedBy": member, "duration": 61 }),
    );
    let t7 = datetime!(2026-02-08 16:20 UTC);
    let shared_in = base(
        "ACc4ll0000000007",
        SHARED_NUMBER_ID,
        "+14155550188",
        member,
        t7,
        json!({ "direction": "incoming", "status": "completed", "answeredAt": ts(t7 + time::Duration::seconds(3)), "answeredBy": member, "duration": 33 }),
    );
    vec![
        answered, missed, voicemail, forwarded, ai, shared_out, shared_in,
    ]
}

/// Numbers `GET /phone-numbers/available` offers: (number, country, region, city, toll-free).
pub(crate) const AVAILABLE: &[(&str, &str, &str, &str, bool)] = &[
    ("+14155550901", "US", "CA", "San Francisco", false),
    ("+14155550902", "US", "CA", "San Francisco", false),
    ("+12125550903", "US", "NY", "New York", false),
    ("+18885550904", "US", "", "", true),
    ("+442071230905", "GB", "ENG", "London", false),
];
