//! Why a case file cannot be used: where ([`Position`]) and what ([`LoadErrorKind`]), so a test
//! can tell every kind apart while the user reads one line.

use std::fmt;
use std::sync::Arc;

use crate::cases::matcher::BadMatcher;
use crate::cases::template::BUILTINS;

/// Where a load error is: the file (or directory), the line (0 for the file as a whole) and the
/// case it is in, when it is inside one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: usize,
    /// The id of the case (as written in the file) the error is in.
    pub case: Option<String>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        match &self.case {
            Some(id) => write!(f, ": case `{id}`"),
            None => Ok(()),
        }
    }
}

/// A case file that cannot be used: where, and what is wrong.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct LoadError {
    pub pos: Position,
    pub kind: LoadErrorKind,
}

impl LoadError {
    /// An error of a file or directory as a whole, or at a line outside any case.
    pub fn at(file: impl Into<String>, line: usize, kind: LoadErrorKind) -> Self {
        LoadError {
            pos: Position {
                file: file.into(),
                line,
                case: None,
            },
            kind,
        }
    }
}

/// What is wrong with a case file. The text of each is what the user reads after the position.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadErrorKind {
    #[error("cannot read the case directory: {0}")]
    ReadDir(#[source] Arc<std::io::Error>),
    #[error("no case files (*.yaml) found")]
    NoCaseFiles,
    #[error("cannot read: {0}")]
    ReadFile(#[source] Arc<std::io::Error>),
    /// The embedded `schemas/case-file.schema.json` does not compile (a build of the suite
    /// that is broken, never a case file).
    #[error("{0}")]
    CaseFileSchema(String),
    #[error("duplicate case `{name}` (first at {first_file}:{first_line})")]
    DuplicateCase {
        name: String,
        first_file: String,
        first_line: usize,
    },
    /// YAML the reader refuses (syntax, duplicate keys, aliases, several documents, ...).
    #[error("{0}")]
    Yaml(String),
    /// A value `schemas/case-file.schema.json` refuses, at its JSON Pointer (empty: the root).
    #[error("{message}{}", at_pointer(pointer))]
    Schema { message: String, pointer: String },
    /// A value the schema lets through but the case model cannot take.
    #[error("{0}")]
    Shape(String),
    #[error("unknown clause `{clause}` (see schemas/clauses.yaml)")]
    UnknownClause { clause: String },
    #[error("step clause `{clause}` is not one of the case's clauses {clauses:?}")]
    StepClauseNotCases {
        clause: String,
        clauses: Vec<String>,
    },
    #[error("bad reading number `{reading}`")]
    BadReading { reading: String },
    #[error("needs `request` or `steps`")]
    NoRequest,
    #[error("a step needs `request` or `deliveries`")]
    StepWithoutRequest,
    #[error("a step has `request` or `deliveries`, not both")]
    RequestAndDeliveries,
    #[error(
        "a `deliveries` step takes no expect, save, secret, control, repeat or for_each (its own `save` goes inside it)"
    )]
    DeliveriesStepOptions,
    #[error(
        "a step that waits for deliveries names `verify`: the secret (saved by `secret:` where the webhook was created or rotated) every delivery it credits must verify with"
    )]
    DeliveriesWithoutVerify,
    #[error("save `{name}`: `header:NAME` or a JSON Pointer")]
    DeliverySave { name: String },
    #[error(transparent)]
    Matcher(#[from] BadMatcher),
    #[error(
        "`{{{{{name}}}}}` is not a builtin ({}), not saved by an earlier step, and not a known fixture (see docs/profile.md)",
        BUILTINS.join(", ")
    )]
    UndefinedName { name: String },
    #[error("`{name}` is a fixture or builtin name; save under another name")]
    ReservedName { name: String },
    #[error("a precondition step takes no for_each or repeat")]
    PreconditionLoops,
    #[error(
        "uses `{fixture}`, a fixture none of the case's requests or setups names: `uses` names the fixture whose instance the case uses up"
    )]
    UsesUnused { fixture: String },
    #[error(
        "`{text}` in the request's {part} is not a template of a variable (`{{{{name}}}}`, a name of letters, digits and `_`); it would be sent as it stands"
    )]
    RequestNotATemplate { text: String, part: &'static str },
    #[error("no route {method} {path} in schemas/openapi.yaml")]
    NoRoute { method: String, path: String },
    /// Text of a derived request (a control, a read-back, a watch) that looks like a template.
    #[error("`{text}` is not a template of a variable")]
    NotATemplate { text: String },
    #[error("tally `{name}`: pointer -> matcher")]
    Tally { name: String },
    #[error("unknown schema `{name}` (components of schemas/openapi.yaml)")]
    UnknownSchema { name: String },
    #[error("`ids` is a JSON Pointer inside each item (`/id`)")]
    WatchIds,
    #[error("a step with `repeat` or `for_each` takes no control")]
    RepeatedControl,
    #[error("a control belongs to a must-reject step: `expect.status` 400, 413, 415, 422 or 4xx")]
    ControlNotMustReject,
    #[error("the control's path {path} is not the route of the step's request")]
    ControlRoute { path: String },
    #[error("a read-back belongs to a step that changes something, not a GET")]
    ReadBackOfGet,
    #[error("a step with `repeat` or `for_each` takes no read_back")]
    RepeatedReadBack,
    #[error("a read-back belongs to a step that must be accepted, not a must-reject step")]
    ReadBackOfMustReject,
    #[error("a read-back asserts something: `json` (the effect) or `same` (what the step keeps)")]
    ReadBackAssertsNothing,
    #[error("`{pointer}` is not a JSON Pointer")]
    NotAPointer { pointer: String },
    #[error("`{pointer}`: a JSON Pointer the read-back's `json` does not also assert")]
    SameAsserted { pointer: String },
    #[error("unknown setup `{name}` (src/cases/setups.yaml has {})", known.join(", "))]
    UnknownSetup { name: String, known: Vec<String> },
}

fn at_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!(" at {pointer}")
    }
}

impl LoadErrorKind {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        use LoadErrorKind::*;
        match self {
            ReadDir(_) => "ReadDir",
            NoCaseFiles => "NoCaseFiles",
            ReadFile(_) => "ReadFile",
            CaseFileSchema(_) => "CaseFileSchema",
            DuplicateCase { .. } => "DuplicateCase",
            Yaml(_) => "Yaml",
            Schema { .. } => "Schema",
            Shape(_) => "Shape",
            UnknownClause { .. } => "UnknownClause",
            StepClauseNotCases { .. } => "StepClauseNotCases",
            BadReading { .. } => "BadReading",
            NoRequest => "NoRequest",
            StepWithoutRequest => "StepWithoutRequest",
            RequestAndDeliveries => "RequestAndDeliveries",
            DeliveriesStepOptions => "DeliveriesStepOptions",
            DeliveriesWithoutVerify => "DeliveriesWithoutVerify",
            DeliverySave { .. } => "DeliverySave",
            Matcher(_) => "Matcher",
            UndefinedName { .. } => "UndefinedName",
            ReservedName { .. } => "ReservedName",
            PreconditionLoops => "PreconditionLoops",
            UsesUnused { .. } => "UsesUnused",
            RequestNotATemplate { .. } => "RequestNotATemplate",
            NoRoute { .. } => "NoRoute",
            NotATemplate { .. } => "NotATemplate",
            Tally { .. } => "Tally",
            UnknownSchema { .. } => "UnknownSchema",
            WatchIds => "WatchIds",
            RepeatedControl => "RepeatedControl",
            ControlNotMustReject => "ControlNotMustReject",
            ControlRoute { .. } => "ControlRoute",
            ReadBackOfGet => "ReadBackOfGet",
            RepeatedReadBack => "RepeatedReadBack",
            ReadBackOfMustReject => "ReadBackOfMustReject",
            ReadBackAssertsNothing => "ReadBackAssertsNothing",
            NotAPointer { .. } => "NotAPointer",
            SameAsserted { .. } => "SameAsserted",
            UnknownSetup { .. } => "UnknownSetup",
        }
    }
}
