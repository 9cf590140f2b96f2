//! How bad a failed check is, in the order a QA lead signs (README, "What a failing run says"):
//! access and secrets, then lost or wrong data and state, then status and error codes, then
//! shape and format. One table, read from what the suite knows of a finding itself: the kind of
//! its check (named by the suite, never by the target), its clauses, and whether the answer it
//! judged was a success. Nothing here reads the text of a message.

use super::{Failure, Finding};

/// The severity of a finding, worst first: `Access < Data < Codes < Shape` in `Ord`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A request served without a key or with a wrong key, another user's resource served, a
    /// delivery whose signature does not hold.
    Access,
    /// An effect not applied, a value not kept, a filter or a page that drops or duplicates items.
    Data,
    /// A status or error code other than the contract's.
    Codes,
    /// The envelope, the content type, a schema (id pattern, timestamps), an error body's shape.
    Shape,
}

impl Severity {
    /// Every severity, worst first.
    pub(crate) const ALL: [Severity; 4] = [
        Severity::Access,
        Severity::Data,
        Severity::Codes,
        Severity::Shape,
    ];

    /// The word the outputs use.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Access => "access",
            Severity::Data => "data",
            Severity::Codes => "codes",
            Severity::Shape => "shape",
        }
    }

    /// 1 (worst) to 4.
    pub fn rank(self) -> u8 {
        self as u8 + 1
    }

    /// The severity of a finding: the worst its clauses give its check. `served` says whether
    /// the answer it judged was a success (2xx), which turns a wrong status on an
    /// authentication rule into a request served that should have been refused.
    pub fn of(finding: &Finding, served: bool) -> Severity {
        // Deliveries that came and do not verify: the secret's whole point, whatever wait met
        // them (the check sets the property on its finding).
        if finding.rule.delivery.as_deref() == Some("signature") {
            return Severity::Access;
        }
        let kind = CheckKind::of(&finding.check);
        finding
            .clauses
            .iter()
            .map(|c| Severity::of_clause(c, kind, served))
            .min()
            .unwrap_or_else(|| Severity::of_clause("", kind, served))
    }

    /// The table: a clause and the kind of the check that cites it.
    pub(crate) fn of_clause(clause: &str, kind: CheckKind, served: bool) -> Severity {
        // A delivery whose signature does not hold: the secret's whole point (Authentication 4).
        // A case that cites the rule among others does not make its other checks access.
        if kind == CheckKind::Signature {
            return Severity::Access;
        }
        // A request that must be refused (no key, a wrong key, another user's key) and was
        // served: the status check of an authentication rule on a success.
        if ACCESS_RULES.contains(&clause) && kind == CheckKind::Status && served {
            return Severity::Access;
        }
        match kind {
            CheckKind::Signature => Severity::Access,
            CheckKind::Value
            | CheckKind::Page
            | CheckKind::Deliveries
            | CheckKind::SideEffect
            | CheckKind::Limit
            | CheckKind::RoundTrip => Severity::Data,
            CheckKind::Status
            | CheckKind::DeclaredStatus
            | CheckKind::ServerError
            | CheckKind::Answer
            | CheckKind::ErrorCode
            | CheckKind::ErrorTitle
            | CheckKind::ErrorStatus
            | CheckKind::Boundary => Severity::Codes,
            CheckKind::ContentType
            | CheckKind::JsonBody
            | CheckKind::Envelope
            | CheckKind::ListShape
            | CheckKind::Schema
            | CheckKind::ErrorBody
            | CheckKind::ErrorMessage
            | CheckKind::Header
            | CheckKind::Saved
            | CheckKind::Suite => Severity::Shape,
        }
    }
}

/// The rules whose refusals are access control (Authentication 1: every request carries a key;
/// 3: a wrong key 401, a caller without access 403).
const ACCESS_RULES: [&str; 2] = ["Authentication > 1", "Authentication > 3"];

/// The kind of a check, from the name the suite gives it (`status`, `json /data/source`,
/// `control of step 2: error title`, `length externalId`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckKind {
    Status,
    DeclaredStatus,
    ServerError,
    Answer,
    ErrorCode,
    ErrorTitle,
    ErrorStatus,
    ErrorBody,
    ErrorMessage,
    ContentType,
    JsonBody,
    Envelope,
    ListShape,
    Schema,
    Header,
    /// A value of the answer a case states (`json POINTER`, a delivery's payload).
    Value,
    /// The pagination walker: pages, duplicates, order, filters on every item.
    Page,
    Deliveries,
    Signature,
    SideEffect,
    /// A limit reached by repeating a step.
    Limit,
    /// A boundary property: an input on or beyond a stated limit.
    Boundary,
    RoundTrip,
    /// A value the case saves for later steps (an id, a signing secret).
    Saved,
    /// The suite itself: a template without a value, a panic.
    Suite,
}

/// The kinds, the most specific first within each severity: a case's own checks before the
/// generic ones, and last the declared-status check, which every wrong status trips.
const ORDER: [CheckKind; 25] = [
    CheckKind::Signature,
    CheckKind::Value,
    CheckKind::Page,
    CheckKind::Deliveries,
    CheckKind::SideEffect,
    CheckKind::Limit,
    CheckKind::RoundTrip,
    CheckKind::Status,
    CheckKind::ServerError,
    CheckKind::ErrorCode,
    CheckKind::ErrorTitle,
    CheckKind::ErrorStatus,
    CheckKind::Boundary,
    CheckKind::Answer,
    CheckKind::DeclaredStatus,
    CheckKind::Envelope,
    CheckKind::ListShape,
    CheckKind::ContentType,
    CheckKind::JsonBody,
    CheckKind::Schema,
    CheckKind::ErrorBody,
    CheckKind::ErrorMessage,
    CheckKind::Header,
    CheckKind::Saved,
    CheckKind::Suite,
];

impl CheckKind {
    /// Where the kind comes among those of its severity: the more specific first.
    pub fn order(self) -> usize {
        ORDER.iter().position(|k| *k == self).unwrap_or(ORDER.len())
    }

    /// The kind of the check named `check`. A control's check (`control of step N: status`)
    /// is of the kind of the check it wraps.
    pub fn of(check: &str) -> CheckKind {
        let name = match check.strip_prefix("control of step ") {
            Some(rest) => rest.split_once(": ").map_or(rest, |(_, c)| c),
            None => check,
        };
        let first = name.split(' ').next().unwrap_or("");
        match name {
            "status" => CheckKind::Status,
            "declared status" => CheckKind::DeclaredStatus,
            "no server error" => CheckKind::ServerError,
            "answer" => CheckKind::Answer,
            "error code" => CheckKind::ErrorCode,
            "error title" => CheckKind::ErrorTitle,
            "error status" => CheckKind::ErrorStatus,
            "error body" => CheckKind::ErrorBody,
            "error message" => CheckKind::ErrorMessage,
            "content type" => CheckKind::ContentType,
            "JSON body" => CheckKind::JsonBody,
            "data envelope" => CheckKind::Envelope,
            "list shape" => CheckKind::ListShape,
            "page walk" | "page size" | "last page" | "no duplicates" | "order"
            | "page includes" | "page excludes" | "page count" => CheckKind::Page,
            "deliveries" | "webhook-id" => CheckKind::Deliveries,
            "signature" => CheckKind::Signature,
            "side effect" | "side-effect watch" => CheckKind::SideEffect,
            "repeat" => CheckKind::Limit,
            "template" | "trial" => CheckKind::Suite,
            // The model's judgement of a read (`model: title`): a value the run set, read back.
            _ if name.starts_with("model: ") => CheckKind::Value,
            // The filter rule on every list answer and the relations between answers: what a
            // list holds.
            "walk at another page size" | "assignments seen from both sides" => CheckKind::Page,
            _ => match first {
                "filter" => CheckKind::Page,
                "schema" => CheckKind::Schema,
                "json" | "delivery" => CheckKind::Value,
                "every" => CheckKind::Page,
                "header" => CheckKind::Header,
                "save" | "secret" => CheckKind::Saved,
                "length" | "range" | "count" | "pattern" | "not-blank" => CheckKind::Boundary,
                "round" => CheckKind::RoundTrip,
                _ => CheckKind::Suite,
            },
        }
    }
}

/// The failures of a trial, the most severe first; findings of one severity keep their order
/// (the order of the steps).
pub(crate) fn worst_first(failures: &[Failure]) -> Vec<&Failure> {
    let mut out: Vec<&Failure> = failures.iter().collect();
    out.sort_by_key(|f| of_failure(f));
    out
}

/// The severity of a failure: its finding's, with whether its answer was a success.
pub(crate) fn of_failure(f: &Failure) -> Severity {
    let served = f
        .exchange
        .as_ref()
        .and_then(|ex| ex.outcome.as_ref().ok())
        .is_some_and(|r| (200..300).contains(&r.status));
    Severity::of(&f.finding, served)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(clause: &str, check: &str) -> Finding {
        Finding::new(clause, check, "x", "y")
    }

    #[test]
    fn a_request_served_without_a_key_is_access_and_a_wrong_code_for_it_is_not() {
        let f = finding("Authentication > 1", "status");
        assert_eq!(Severity::of(&f, true), Severity::Access);
        assert_eq!(Severity::of(&f, false), Severity::Codes);
        let f = finding("Authentication > 3", "control of step 1: status");
        assert_eq!(Severity::of(&f, true), Severity::Access);
        // The 401's title is a code, whatever the answer.
        let f = finding("Authentication > 3", "error title");
        assert_eq!(Severity::of(&f, false), Severity::Codes);
        let f = finding("Events > deliveries", "signature");
        assert_eq!(Severity::of(&f, false), Severity::Access);
        // A case citing the signature rule among others: its other checks are what they are.
        let f = finding("Authentication > 4", "deliveries");
        assert_eq!(Severity::of(&f, false), Severity::Data);
        let f = finding("Authentication > 4", "status");
        assert_eq!(Severity::of(&f, true), Severity::Codes);
    }

    #[test]
    fn each_kind_has_its_place_in_the_order() {
        let cases = [
            ("json /data/defaultFields/emails", Severity::Data),
            ("no duplicates", Severity::Data),
            ("every item /createdAt", Severity::Data),
            ("delivery #2 json /data/links", Severity::Data),
            ("deliveries", Severity::Data),
            ("side effect", Severity::Data),
            ("round trip: get after PATCH", Severity::Data),
            ("status", Severity::Codes),
            ("control of step 3: status", Severity::Codes),
            ("error code", Severity::Codes),
            ("length externalId", Severity::Codes),
            ("no server error", Severity::Codes),
            ("content type", Severity::Shape),
            ("data envelope", Severity::Shape),
            ("schema ContactEnvelope", Severity::Shape),
            ("control of step 2: list shape", Severity::Shape),
            ("error body", Severity::Shape),
            ("save contact", Severity::Shape),
        ];
        for (check, want) in cases {
            let got = Severity::of(&finding("Resources > Contact", check), true);
            assert_eq!(got, want, "{check}");
        }
        assert!(Severity::Access < Severity::Data && Severity::Codes < Severity::Shape);
        assert!(CheckKind::Status.order() < CheckKind::DeclaredStatus.order());
        assert!(CheckKind::ServerError.order() < CheckKind::DeclaredStatus.order());
    }

    #[test]
    fn the_worst_clause_of_a_finding_decides() {
        let mut f = finding("Resources > Contact", "status");
        f.clauses.push("Authentication > 1".to_string());
        assert_eq!(Severity::of(&f, true), Severity::Access);
    }
}
