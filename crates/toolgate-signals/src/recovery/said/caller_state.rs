//! The caller's own account or user is in a state that refuses its calls: suspended,
//! disabled, deactivated, blocked, banned, locked, silenced, paused, pending approval,
//! not yet activated, its email or identity not verified, or the place it calls from not
//! served. Only its owner (or the upstream's support) changes that; the same call sent
//! again fails the same way. A user or an account the request names ("The user octocat
//! is already suspended", "customer account 4411 is closed") is the request's.

use super::{OTHERS, Words};

/// Who a state is about when it is the caller: its user, its login, "you", or what it
/// calls through (an account, an organisation, a workspace, a subscription, a project).
const SUBJECTS: [&str; 12] = [
    "user",
    "login",
    "you",
    "account",
    "organization",
    "organisation",
    "workspace",
    "subscription",
    "tenant",
    "project",
    "team",
    "domain",
];

/// Words that may stand between a subject and its state: "The current user has been
/// blocked", "Your login is currently pending approval". Not "temporarily": "You are
/// temporarily locked out" passes with a wait.
const FILLERS: [&str; 13] = [
    "is",
    "are",
    "has",
    "have",
    "been",
    "was",
    "were",
    "currently",
    "permanently",
    "now",
    "being",
    "the",
    "smtp",
];

/// States that refuse every call of whoever is in them.
const STATES: [&str; 10] = [
    "suspended",
    "disabled",
    "deactivated",
    "blocked",
    "banned",
    "locked",
    "silenced",
    "paused",
    "pending",
    "inactive",
];

/// What, after "not" (or "not yet", "not fully"), says a holder was never let in:
/// "Account not active", "Your SMTP account is not yet activated", "Account is not fully
/// set up".
const NOT_YET: [&str; 6] = [
    "active",
    "activated",
    "approved",
    "confirmed",
    "verified",
    "set",
];

/// Verbs that act on a user or an account the request names ("You cannot disable your
/// own account", "Failed to suspend user"): the request's, not a state of the caller's.
const ACTIONS: [&str; 8] = [
    "suspend",
    "disable",
    "deactivate",
    "block",
    "ban",
    "lock",
    "activate",
    "already",
];

/// The caller's user, login or holder is in a state that refuses it.
pub(super) fn held(w: &Words<'_>) -> bool {
    if w.any_of(&ACTIONS) {
        return false;
    }
    let words = w.w;
    let stated = (0..words.len()).any(|i| {
        if !SUBJECTS.contains(&words[i].as_str()) {
            return false;
        }
        if i > 0 && OTHERS.contains(&words[i - 1].as_str()) {
            return false;
        }
        // An id the reply quotes may sit between them ("The subscription '1a2b' is
        // disabled").
        let mut j = i + 1;
        while j < words.len()
            && (FILLERS.contains(&words[j].as_str())
                || words[j].chars().any(|c| c.is_ascii_digit()))
        {
            j += 1;
        }
        let Some(next) = words.get(j) else {
            return false;
        };
        if STATES.contains(&next.as_str()) {
            return true;
        }
        let mut k = j + 1;
        while words.get(k).is_some_and(|x| x == "yet" || x == "fully") {
            k += 1;
        }
        next == "not" && words.get(k).is_some_and(|x| NOT_YET.contains(&x.as_str()))
    });
    // "Email sending is disabled for your entire … account."
    let for_yours = w.phrase(&["for", "your"])
        && w.any_of(&STATES)
        && w.any_of(&["account", "organization", "organisation", "workspace"]);
    stated || for_yours
}

/// The caller's email, phone or identity is not verified: "User is not confirmed.",
/// "You have to confirm your email address before continuing", "Your login is missing a
/// confirmed e-mail address", "The authenticated record is not verified", "Identity
/// verification (KYC) must be completed". A sender or an address the request names
/// ("Email address is not verified. The following identities failed the check") is the
/// request's, so the caller must be named.
pub(super) fn unverified(w: &Words<'_>) -> bool {
    if w.has("kyc") {
        return true;
    }
    const CHECKED: [&str; 7] = [
        "confirm",
        "confirmed",
        "verify",
        "verified",
        "verification",
        "unverified",
        "unconfirmed",
    ];
    const CALLER: [&str; 6] = ["your", "you", "user", "login", "authenticated", "current"];
    const NOT_DONE: [&str; 6] = [
        "not",
        "missing",
        "before",
        "unverified",
        "unconfirmed",
        "must",
    ];
    w.any_of(&CHECKED)
        && w.any_of(&CALLER)
        && w.any_of(&NOT_DONE)
        && !w.any_of(&OTHERS)
        && !w.any_of(&["sender", "identities", "recipient"])
        && (w.any_of(&[
            "email", "mail", "phone", "identity", "record", "user", "login",
        ]))
}

/// The place the caller calls from is not served: "Country, region, or territory not
/// supported", "User location is not supported for the API use". A country the request
/// names ("Shipping to this country is not supported") is the request's, so the caller
/// (or the legal phrase "country, region, or territory") must be named.
pub(super) fn place_not_served(w: &Words<'_>) -> bool {
    let place = w.any_of(&["country", "territory", "location", "region"]);
    let refused =
        w.phrase(&["not", "supported"]) || w.has("unsupported") || w.phrase(&["not", "available"]);
    let caller =
        w.any_of(&["user", "your", "you", "organization", "account"]) || w.has("territory");
    place && refused && caller && !w.any_of(&OTHERS)
}
