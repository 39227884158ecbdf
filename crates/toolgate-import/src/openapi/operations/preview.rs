//! Preview media types an operation cannot be called without. A description may say, in
//! its `x-github.previews` extension, that an operation answers only when the request's
//! `Accept` header names a preview (`{"name": "baptiste", "required": true}`): without
//! it the call fails with `415` or `404`, whatever the arguments. Such a preview is sent
//! as a fixed `Accept` header, in place of an `Accept` argument the operation declares;
//! one that is not required changes nothing.

use serde_json::Value;

use super::builder::Builder;

impl Builder<'_> {
    /// Sends the previews the operation requires in its `Accept` header, in place of an
    /// `Accept` argument the operation declares; a value the description fixes for the
    /// header is kept, with a note.
    pub(super) fn required_previews(&mut self) {
        let names: Vec<&str> = self
            .raw
            .op
            .get("x-github")
            .and_then(|x| x.get("previews"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("required").and_then(Value::as_bool) == Some(true))
            .filter_map(|p| p.get("name").and_then(Value::as_str))
            .filter(|name| is_preview_name(name))
            .collect();
        if names.is_empty() {
            return;
        }
        let types: Vec<String> = names
            .iter()
            .map(|name| format!("application/vnd.github.{name}-preview+json"))
            .collect();
        let accept = types.join(", ");
        let own = self
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("accept"))
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()));
        if let Some((header, value)) = own {
            if types.iter().all(|t| value.contains(t.as_str())) {
                return;
            }
            // A value the description fixes says what to send; an argument of the
            // model's (an optional `accept` beside the required preview) gives way to
            // the preview, without which the call cannot succeed.
            let Some(arg) = value
                .strip_prefix('{')
                .and_then(|v| v.strip_suffix('}'))
                .filter(|arg| self.args.iter().any(|a| a.name == *arg))
                .map(str::to_string)
            else {
                self.notes.push(format!(
                    "the operation requires the preview media type `{accept}`, which its own `Accept` value does not name"
                ));
                return;
            };
            self.args.retain(|a| a.name != arg);
            self.headers.remove(&header);
        }
        self.notes.push(format!(
            "sends `Accept: {accept}`: the operation answers only to this preview media type"
        ));
        self.headers.insert("Accept".into(), Value::String(accept));
    }
}

/// A preview's name as it may stand in a media type: letters, digits and `-`.
fn is_preview_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}
