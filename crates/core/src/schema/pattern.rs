//! The `pattern` keyword, with a bound on the work of a whole validation.
//!
//! A pattern the linear-time `regex` engine can run (no backreference, no
//! lookaround) is the crate's own `pattern` keyword, compiled for it alone
//! (the crate's literal and sequence shortcuts included). One that needs
//! backtracking runs on `fancy-regex`, and every match draws on the
//! validation's `backtrack_budget` (`Bounds::take_backtracking`): a match
//! first runs under `QUICK_LIMIT` backtracking steps, and only when it
//! needs more under the schema's `backtrack_limit`; each run costs its
//! limit. A match the budget cannot pay for, or that needs more than
//! `backtrack_limit`, ends the validation with an error (never a guessed
//! answer: under `not` or `oneOf` either guess could let a value through).
//!
//! Everywhere else the crate matches patterns (`patternProperties`,
//! `additionalProperties` and `unevaluatedProperties` beside them) it runs
//! the `regex` engine only, so a pattern there that needs backtracking
//! fails the compile (`compile::regex_error`).

use jsonschema::json::Node;
use jsonschema::paths::Location;
use jsonschema::{Draft, Keyword, PatternOptions, ValidationError, Validator};
use serde_json::Value;

use super::bounds::{abort, custom_error, Abort};
use super::node::{TapeJson, TapeNode};

/// Backtracking steps of a match's first run.
pub(crate) const QUICK_LIMIT: u64 = 1000;

/// Engine limits of a schema's patterns.
#[derive(Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) backtrack_limit: usize,
    pub(crate) size_limit: usize,
}

impl Limits {
    /// The crate's engine: `regex` only, within the size limits.
    pub(crate) fn linear(&self) -> PatternOptions<jsonschema::Regex> {
        PatternOptions::regex().size_limit(self.size_limit).dfa_size_limit(self.size_limit)
    }

    /// `translated` (an ECMA-262 pattern in the `regex` crate's syntax) as
    /// the crate's `regex` engine compiles it under these limits; `None`
    /// when it needs backtracking or is too big.
    pub(crate) fn regex(&self, translated: &str) -> Option<regex::Regex> {
        regex::RegexBuilder::new(translated).size_limit(self.size_limit).dfa_size_limit(self.size_limit).build().ok()
    }
}

enum Matcher {
    /// The crate's `pattern` keyword, compiled alone.
    Linear(Validator<TapeJson>),
    /// Runs of increasing backtracking limits, each with its limit.
    Backtracking(Vec<(fancy_regex::Regex, u64)>),
}

struct Pattern {
    matcher: Matcher,
    pattern: String,
    location: Location,
}

/// The `pattern` keyword compiled (`ValidationOptions::with_keyword`'s
/// factory, given the schema's limits).
pub(crate) fn keyword(limits: Limits, value: &Value, location: Location) -> super::numeric::Compiled {
    let invalid = |why: String| Err(ValidationError::custom(why));
    let Value::String(pattern) = value else {
        return invalid(format!("pattern must be a string, got {value}"));
    };
    let Ok(translated) = jsonschema_regex::to_rust_regex(pattern) else {
        return invalid(format!("{pattern:?} is not an ECMA-262 regular expression"));
    };
    let matcher = if limits.regex(&translated).is_some() {
        let alone = jsonschema::options_for::<TapeJson>()
            .with_draft(Draft::Draft202012)
            .with_pattern_options(limits.linear())
            .build(&serde_json::json!({ "pattern": pattern }));
        match alone {
            Ok(v) => Matcher::Linear(v),
            Err(e) => return invalid(e.masked().to_string()),
        }
    } else {
        let full = limits.backtrack_limit as u64;
        let mut runs: Vec<(fancy_regex::Regex, u64)> = Vec::new();
        for limit in [QUICK_LIMIT.min(full), full] {
            if runs.last().is_some_and(|&(_, l)| l == limit) {
                continue;
            }
            let built = fancy_regex::RegexBuilder::new(&translated)
                .backtrack_limit(limit as usize)
                .delegate_size_limit(limits.size_limit)
                .delegate_dfa_size_limit(limits.size_limit)
                .build();
            match built {
                Ok(r) => runs.push((r, limit)),
                Err(e) => return invalid(format!("{pattern:?} is not a regular expression qjson can run: {e}")),
            }
        }
        Matcher::Backtracking(runs)
    };
    Ok(Box::new(Pattern { matcher, pattern: pattern.clone(), location }))
}

impl Pattern {
    fn matches(&self, node: &TapeNode<'_>, text: &str) -> bool {
        let Matcher::Backtracking(runs) = &self.matcher else { unreachable!("linear patterns are the crate's") };
        let bounds = &node.walk().bounds;
        for (regex, limit) in runs {
            if !bounds.take_backtracking(*limit) {
                self.stop(node, true);
            }
            // (The engine may panic on some patterns, as the crate notes
            // where it runs them: such a match is one it could not finish.)
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| regex.is_match(text)));
            if let Ok(Ok(m)) = run {
                return m;
            }
        }
        self.stop(node, false)
    }

    fn stop(&self, node: &TapeNode<'_>, budget: bool) -> ! {
        abort(Abort::Backtrack { at: node.slot(), keyword: self.location.as_str().to_owned(), budget })
    }

    fn message(&self) -> String {
        format!(r#"value does not match "{}""#, self.pattern)
    }
}

impl<'i> Keyword<'i, TapeJson> for Pattern {
    fn validate(&self, instance: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        if let Matcher::Linear(v) = &self.matcher {
            return v.validate(instance).map_err(|e| custom_error(&instance, e.masked().to_string()));
        }
        match instance.as_string() {
            Some(text) if !self.matches(&instance, &text) => Err(custom_error(&instance, self.message())),
            _ => Ok(()),
        }
    }

    fn is_valid(&self, instance: TapeNode<'i>) -> bool {
        match &self.matcher {
            Matcher::Linear(v) => v.is_valid(instance),
            Matcher::Backtracking(_) => instance.as_string().is_none_or(|text| self.matches(&instance, &text)),
        }
    }
}
