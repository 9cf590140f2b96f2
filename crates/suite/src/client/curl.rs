//! The curl rendering of an exchange: the reproduction every failure shows. It runs as printed:
//! the run's key is read from the environment (`"Authorization: $WORKSPACE_API_KEY"`, the
//! variable the suite itself reads), a profile's other key from a variable named after its
//! fixture (`$RESTRICTED_API_KEY`), so no key is ever printed and none needs pasting in.

use super::{API_KEY_PLACEHOLDER, Exchange, NEAR_MISS_PLACEHOLDER, Redactor};

/// The environment variable a reproduction reads the run's API key from.
pub(crate) const API_KEY_VARIABLE: &str = "WORKSPACE_API_KEY";

pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The variable standing for a key shown as `label`: the run's key, or a profile key shown as
/// `<FIXTURE_NAME>`. A made-up key (an invalid one a case sends on purpose) has none: it is
/// printed as sent.
pub(crate) fn key_variable(label: &str) -> Option<String> {
    if label == API_KEY_PLACEHOLDER {
        return Some(API_KEY_VARIABLE.to_string());
    }
    if label == NEAR_MISS_PLACEHOLDER {
        // The shell's own "without the last character".
        return Some(format!("{API_KEY_VARIABLE}%?"));
    }
    let name = label.strip_prefix('<')?.strip_suffix('>')?;
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    plain.then(|| name.to_string())
}

impl Exchange {
    /// A curl command that reproduces the request; keys are read from environment variables.
    pub fn curl(&self, redactor: &Redactor) -> String {
        let mut cmd = format!("curl -sS -i -X {} {}", self.method, shell_quote(&self.url));
        for (k, v) in &self.request_headers {
            let var = k
                .eq_ignore_ascii_case("authorization")
                .then(|| key_variable(v))
                .flatten();
            match var {
                // Double quotes, so that the shell puts the key in.
                Some(var) if var.contains('%') => {
                    cmd.push_str(&format!(" -H \"{k}: ${{{var}}}\""));
                }
                Some(var) => cmd.push_str(&format!(" -H \"{k}: ${var}\"")),
                None => cmd.push_str(&format!(" -H {}", shell_quote(&format!("{k}: {v}")))),
            }
        }
        if let Some(b) = &self.request_body {
            cmd.push_str(&format!(" --data-raw {}", shell_quote(b)));
        }
        redactor.redact(&cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_from_the_environment_and_made_up_keys_stay_as_sent() {
        assert_eq!(
            key_variable(API_KEY_PLACEHOLDER).as_deref(),
            Some("WORKSPACE_API_KEY")
        );
        assert_eq!(
            key_variable("<RESTRICTED_API_KEY>").as_deref(),
            Some("RESTRICTED_API_KEY")
        );
        assert_eq!(key_variable("invalid-key-r1234567"), None);
        assert_eq!(key_variable("<a b>"), None);
    }
}
