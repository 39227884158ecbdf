use super::super::is_error_envelope;

#[test]
fn a_batch_whose_every_item_failed_is_an_error_envelope() {
    for body in [
        // Each result nothing but its error.
        &br#"{"multicast_id":108,"success":0,"failure":1,"canonical_ids":0,"results":[{"error":"NotRegistered"}]}"#[..],
        // A status that says failed beside the item's error, in words or digits.
        br#"{"messages":[{"status":"4","error-text":"Invalid credentials"}]}"#,
        br#"{"message-count":"1","messages":[{"status":"15","error-text":"Illegal Sender Address - rejected"}]}"#,
        br#"{"data":[{"status":"error","message":"not registered","details":{"error":"DeviceNotRegistered"}}]}"#,
        br#"{"results":[{"error":"RATE_LIMIT_EXCEEDED"}],"data":[]}"#,
        br#"{"messages":[{"apiMessageId":null,"accepted":false,"to":"27999","errorCode":105,"error":"Invalid destination address."}]}"#,
        // The error in the item's own reply body, an object or a list of them.
        br#"{"responses":[{"id":"1","status":403,"body":{"error":{"code":"Authorization_RequestDenied"}}}]}"#,
        br#"{"compositeResponse":[{"body":[{"errorCode":"INVALID_SESSION_ID"}],"httpStatusCode":401,"referenceId":"r1"}]}"#,
        // The outcome under the action's name, one object per document.
        br#"{"took":2,"errors":false,"items":[{"index":{"_id":"7","status":400,"error":{"type":"mapper_parsing_exception"}}}]}"#,
        // A reply that is nothing but the list.
        br#"[{"ErrorCode":406,"Message":"You tried to send to a recipient that has been marked as inactive."}]"#,
        br#"[{"email":"a@example.com","status":"rejected","reject_reason":"hard-bounce","_id":"x"}]"#,
        // A status object whose name says rejected, or an HTTP failure number beside a
        // status in words.
        br#"{"messages":[{"to":"41793026727","status":{"groupId":5,"groupName":"REJECTED","name":"REJECTED_NOT_ENOUGH_CREDITS","description":"Not enough credits"},"messageId":"m1"}]}"#,
        br#"{"SMSMessageData":{"Message":"Sent to 0/1","Recipients":[{"statusCode":405,"number":"+2547","status":"InsufficientBalance"}]}}"#,
        // The list one object down.
        br#"{"SMSMessageData":{"Message":"Sent to 0/1","Recipients":[{"statusCode":405,"error":"InsufficientBalance"}]}}"#,
    ] {
        assert!(is_error_envelope(body), "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn a_batch_with_one_item_through_is_a_partial_success_and_no_envelope() {
    // The same failed item alone is a failed batch…
    assert!(is_error_envelope(
        br#"{"FailedRecordCount":1,"Records":[{"ErrorCode":"InternalFailure","ErrorMessage":"x"}]}"#
    ));
    // …and beside one that went through, a partial success.
    for body in [
        br#"{"multicast_id":216,"success":1,"failure":1,"results":[{"message_id":"1:1516"},{"error":"NotRegistered"}]}"#,
        &br#"{"FailedRecordCount":1,"Records":[{"SequenceNumber":"4954","ShardId":"shardId-0"},{"ErrorCode":"InternalFailure","ErrorMessage":"x"}]}"#[..],
        br#"[{"ErrorCode":0,"Message":"OK","MessageID":"b7"},{"ErrorCode":406,"Message":"inactive"}]"#,
        br#"{"responses":[{"id":"1","status":200,"body":{}},{"id":"2","status":404,"body":{"error":{"code":"ErrorItemNotFound"}}}]}"#,
    ] {
        assert!(!is_error_envelope(body), "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn records_that_carry_an_error_of_their_own_are_data_not_failed_results() {
    // Under a name for the call's results the same item is a failed result…
    assert!(is_error_envelope(
        br#"{"results":[{"id":17,"error":"sync aborted","status":"failed"}]}"#
    ));
    // …under a name for what the API holds, a record.
    for body in [
        // A list named for what it holds, not for the call's results.
        &br#"{"rows":[{"id":17,"error":"sync aborted","status":"failed","title":"batch 17"}]}"#[..],
        br#"{"jobs":[{"id":"j1","state":"FAILED","error":{"code":"RESOURCE_EXHAUSTED"}}]}"#,
        // Results inside the API's data are what was asked for (a log of earlier calls).
        br#"{"success":true,"data":{"total":1,"data":[{"id":"log_1","status":402,"error_message":"Insufficient credits"}]}}"#,
        // A status object whose name says pending.
        br#"{"messages":[{"to":"4179","status":{"groupId":1,"groupName":"PENDING","name":"PENDING_ACCEPTED"},"messageId":"m1"}]}"#,
        // A success code that is no HTTP failure, and no error member.
        br#"{"SMSMessageData":{"Recipients":[{"statusCode":101,"status":"Success","messageId":"ATPid_1"}]}}"#,
        // An item whose error member is empty.
        br#"[{"email":"a@example.com","status":"sent","reject_reason":null,"_id":"x"}]"#,
    ] {
        assert!(!is_error_envelope(body), "{}", String::from_utf8_lossy(body));
    }
}
