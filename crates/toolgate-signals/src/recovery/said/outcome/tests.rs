use super::super::decide;
use crate::recovery::Recovery;

fn said(text: &str) -> Option<Recovery> {
    decide(&[text.to_owned()], None, false)
}

#[test]
fn an_addressee_or_a_message_refused_in_a_short_code_is_the_requests() {
    for text in [
        "NotRegistered",
        "DeviceNotRegistered",
        "Unregistered",
        "hard-bounce",
        "You tried to send to a recipient that has been marked as inactive.",
        "All included players are not subscribed",
        "Illegal Sender Address - rejected",
        "BadDeviceToken",
        "No valid numbers specified",
        "not_in_channel",
        "is_archived",
        "MessageTooBig",
        "msg_too_long",
        "PayloadTooLarge",
    ] {
        assert_eq!(said(text), Some(Recovery::Request), "{text}");
    }
    // A holder or the caller's own address, not registered, is its owner's to register.
    for text in [
        "The subscription is not registered to use namespace 'Microsoft.ContainerInstance'",
        "User is not registered",
        "Unregistered IP address.",
    ] {
        assert_ne!(said(text), Some(Recovery::Request), "{text}");
    }
    // Under a 403 too: the addressee refused the bot, not the caller's credentials.
    assert_eq!(
        decide(
            &["Forbidden: bot was blocked by the user".to_owned()],
            None,
            true
        ),
        Some(Recovery::Request)
    );
}

#[test]
fn the_servers_own_failure_named_by_its_code_passes_by_itself() {
    for text in [
        "InternalServerError",
        "InternalFailure",
        "Internal server error",
        "system error",
    ] {
        assert_eq!(said(text), Some(Recovery::Transient), "{text}");
    }
    assert_ne!(said("Invalid internal state"), Some(Recovery::Transient));
}

#[test]
fn a_caller_not_signed_in_or_a_sender_mismatched_is_the_credentials() {
    for text in [
        "not_authed",
        "MismatchSenderId",
        "Authorization_RequestDenied",
    ] {
        assert_eq!(said(text), Some(Recovery::Credentials), "{text}");
    }
}

#[test]
fn a_feature_only_a_paid_plan_has_is_the_accounts() {
    for text in [
        "paid_only",
        "PaymentRequired",
        "You must enable Billing on the Google Cloud Project at https://console.cloud.google.com/project/_/billing/enable",
    ] {
        assert_eq!(said(text), Some(Recovery::Account), "{text}");
    }
}

#[test]
fn a_duplicate_or_a_thing_missing_or_unknown_in_a_short_code_is_the_requests() {
    for text in [
        "DUPLICATE_VALUE",
        "duplicate value found: ExternalId__c duplicates value on record with id: 001xx",
        "[1]: document missing",
        "Unknown_Subaccount",
    ] {
        assert_eq!(said(text), Some(Recovery::Request), "{text}");
    }
    for text in ["Unknown error", "An unknown error occurred on the server"] {
        assert_ne!(said(text), Some(Recovery::Request), "{text}");
    }
}
