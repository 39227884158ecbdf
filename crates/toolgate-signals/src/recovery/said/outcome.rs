//! What the per-item results of a batch, push, SMS or email API say, in the short codes
//! those APIs give each message (`NotRegistered`, `MessageTooBig`, `InternalServerError`,
//! `not_authed`, `paid_only`, `hard-bounce`): the addressee of a message refused, the
//! message itself refused, the server's own failure, the caller not signed in, and a
//! feature the account's plan lacks. Each is the class any API's words would be; these
//! rules only read the short forms the codes take.

use super::{HOLDERS, Words};

/// Whom or what a message is sent to: a device's token, a recipient, a number, a
/// channel. Another addressee passes where this one is refused.
const ADDRESSEES: [&str; 19] = [
    "device",
    "token",
    "registration",
    "recipient",
    "recipients",
    "destination",
    "number",
    "numbers",
    "address",
    "addresses",
    "player",
    "players",
    "subscriber",
    "subscribers",
    "channel",
    "chat",
    "email",
    "mailbox",
    "sender",
];

/// The parts of a message that may be too big.
const MESSAGE_PARTS: [&str; 8] = [
    "message",
    "msg",
    "payload",
    "body",
    "text",
    "content",
    "entity",
    "attachment",
];

/// The addressee of a message refused, or the message itself: "NotRegistered",
/// "DeviceNotRegistered", "Unregistered", "hard-bounce", "a recipient that has been
/// marked as inactive", "All included players are not subscribed", "Illegal Sender
/// Address", "BadDeviceToken", "No valid numbers specified", "not_in_channel", "is_archived",
/// "MessageTooBig", "msg_too_long", "PayloadTooLarge", "bot was blocked by the user".
/// Another addressee or a smaller message passes; the same one never does. A
/// subscription, account or organization not registered is the owner's to register
/// (`unregistered` in `said.rs`), so the holder's words rule this out.
pub(super) fn addressee_or_message_refused(w: &Words<'_>) -> bool {
    let short_code = w.w.len() <= 3;
    // The caller's own address or app, not registered, is its owner's to register
    // ("Unregistered IP address.").
    let holder = w.any_of(&HOLDERS)
        || w.any_of(&[
            "subscription",
            "tenant",
            "user",
            "ip",
            "app",
            "application",
            "client",
        ]);
    let not_registered = (w.phrase(&["not", "registered"]) || w.has("unregistered"))
        && (short_code || w.any_of(&ADDRESSEES))
        && !holder;
    not_registered
        || w.any_of(&["bounce", "bounced"])
        || (w.any_of(&ADDRESSEES) && w.any_of(&["inactive", "illegal", "archived", "bad"]))
        || w.phrase(&["not", "subscribed"]) && w.any_of(&ADDRESSEES)
        || w.phrase(&["no", "valid"]) && w.any_of(&ADDRESSEES)
        || w.phrase(&["not", "in", "channel"])
        || (short_code && w.phrase(&["is", "archived"]))
        || (w.any_of(&MESSAGE_PARTS)
            && w.near(&["too"], &["big", "long", "large"], 1)
            && !w.is_a_rule())
        || w.phrase(&["blocked", "by", "the", "user"])
}

/// The server's own failure, named by its code: `InternalServerError`,
/// `InternalFailure`, "Internal server error", "system error" and "system busy" (which
/// their APIs document as worth retrying). An internal state or configuration is not the
/// server's passing failure. A lone `unavailable` is not read: a name or a slot may be
/// unavailable too.
pub(super) fn servers_own_failure(w: &Words<'_>) -> bool {
    (w.near(&["internal"], &["error", "failure", "fault"], 2)
        && !w.any_of(&["state", "configuration", "config"]))
        || w.phrase(&["system", "error"])
        || w.phrase(&["system", "busy"])
}

/// The caller not signed in, or its sender's identity refused, in a code's short form:
/// `not_authed`, `MismatchSenderId`, `Authorization_RequestDenied`.
pub(super) fn caller_not_signed_in(w: &Words<'_>) -> bool {
    w.phrase(&["not", "authed"])
        || w.phrase(&["mismatch", "sender", "id"])
        || w.phrase(&["authorization", "request", "denied"])
}

/// A feature the account's plan lacks, or a payment its owner must make, in a code's
/// short form: `paid_only`, `PaymentRequired`, "You must enable Billing on the …
/// Project".
pub(super) fn plan_lacks_it(w: &Words<'_>) -> bool {
    (w.w.len() <= 3 && (w.phrase(&["paid", "only"]) || w.phrase(&["payment", "required"])))
        || w.phrase(&["enable", "billing"])
}

#[cfg(test)]
mod tests;
