//! Unit tests of stream routing and replay.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn drain(attached: &mut Attached) -> Vec<SseEvent> {
    let mut events = Vec::new();
    while let Ok(event) = attached.events.try_recv() {
        events.push(event);
    }
    events
}

fn ids(events: &[SseEvent]) -> Vec<&str> {
    events.iter().map(|event| event.id.as_str()).collect()
}

#[test]
fn related_messages_use_the_post_stream_and_the_response_closes_it() {
    let hub = StreamHub::new(16);
    let id = RequestId::Integer(1);
    let mut post = hub.open_post_stream(id.clone(), true);
    hub.route(
        Route::Request(id.clone()),
        json!({"jsonrpc": "2.0", "method": "codex/event", "params": {}}),
    );
    hub.route(
        Route::Standalone,
        json!({"jsonrpc": "2.0", "method": "other"}),
    );
    hub.route(
        Route::Request(id.clone()),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
    );
    let events = drain(&mut post);
    assert_eq!(ids(&events), vec!["1/0", "1/1", "1/2"]);
    assert_eq!(events[0].data, "");
    assert!(events[2].data.contains("\"result\""));
    // The sender was dropped with the response: the stream ends.
    assert!(post.events.try_recv().is_err() && post.events.is_closed());
    assert!(!hub.has_route(&id));

    // The unrelated message waited on the standalone stream.
    let mut get = hub.attach_standalone().expect("attach");
    assert_eq!(ids(&drain(&mut get)), vec!["0/1"]);
    assert_eq!(hub.attach_standalone().err(), Some(ResumeError::Busy));
}

#[test]
fn a_dropped_stream_is_resumed_from_the_last_event_id() {
    let hub = StreamHub::new(16);
    let id = RequestId::String("call".into());
    let post = hub.open_post_stream(id.clone(), false);
    hub.route(Route::Request(id.clone()), json!({"method": "a"}));
    drop(post);
    hub.route(Route::Request(id.clone()), json!({"method": "b"}));
    hub.route(Route::Request(id.clone()), json!({"method": "c"}));
    let mut resumed = hub.resume("1/1").expect("resume");
    hub.route(Route::Request(id), json!({"id": "call", "result": {}}));
    let events = drain(&mut resumed);
    assert_eq!(ids(&events), vec!["1/2", "1/3", "1/4"]);
    assert_eq!(hub.resume("9/1").err(), Some(ResumeError::UnknownStream));
    assert_eq!(hub.resume("garbage").err(), Some(ResumeError::Malformed));
    // A finished stream can still be replayed, and then ends.
    let mut again = hub.resume("1/3").expect("resume finished");
    assert_eq!(ids(&drain(&mut again)), vec!["1/4"]);
    assert!(again.events.is_closed());
}

#[test]
fn json_posts_get_only_their_response_and_notifications_go_to_get() {
    let hub = StreamHub::new(2);
    let id = RequestId::Integer(5);
    let mut response = hub.open_json_route(id.clone());
    hub.route(Route::Request(id.clone()), json!({"method": "codex/event"}));
    assert!(response.try_recv().is_err());
    hub.route(Route::Request(id), json!({"id": 5, "result": {"ok": true}}));
    assert_eq!(
        response.try_recv().ok(),
        Some(json!({"id": 5, "result": {"ok": true}}))
    );
    // The replay buffer is bounded.
    hub.route(Route::Standalone, json!({"method": "x"}));
    hub.route(Route::Standalone, json!({"method": "y"}));
    let mut get = hub.attach_standalone().expect("attach");
    assert_eq!(ids(&drain(&mut get)), vec!["0/2", "0/3"]);
}

#[test]
fn an_abandoned_request_closes_its_stream_and_open_connections_are_counted() {
    let hub = StreamHub::new(8);
    let id = RequestId::Integer(2);
    let post = hub.open_post_stream(id.clone(), false);
    assert_eq!(hub.open_connections(), 1);
    hub.abandon_request(&id);
    assert!(post.events.is_closed());
    drop(post);
    assert_eq!(hub.open_connections(), 0);
    let json = hub.open_json_route(RequestId::Integer(3));
    hub.abandon_request(&RequestId::Integer(3));
    let mut json = json;
    assert!(json.try_recv().is_err());
    hub.close_all();
    assert!(!hub.has_route(&RequestId::Integer(3)));
}

#[test]
fn a_response_without_a_route_never_reaches_the_get_stream() {
    let hub = StreamHub::new(8);
    hub.route(
        Route::Request(RequestId::Integer(9)),
        json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
    );
    let mut get = hub.attach_standalone().expect("attach");
    assert_eq!(drain(&mut get), Vec::new());
}

#[test]
fn a_session_is_not_idle_while_a_connection_is_open_and_closing_one_counts_as_activity() {
    let hub = StreamHub::new(8);
    let later = Instant::now() + std::time::Duration::from_secs(3600);
    let guard = hub.connection_guard();
    assert_eq!(hub.idle_for(later), None);
    drop(guard);
    let idle = hub.idle_for(later).expect("idle once closed");
    assert!(idle <= std::time::Duration::from_secs(3600));
    assert!(idle > std::time::Duration::from_secs(3590));
}

#[test]
fn a_client_that_stops_reading_is_disconnected_instead_of_queued_without_bound() {
    let hub = StreamHub::new(2);
    let mut get = hub.attach_standalone().expect("attach");
    for index in 0..40 {
        hub.route(
            Route::Standalone,
            json!({"method": "m", "params": {"index": index}}),
        );
    }
    // 32 events fit (sixteen replay buffers); then the connection was dropped.
    assert_eq!(drain(&mut get).len(), 32);
    assert!(get.events.is_closed());
    // The client comes back and gets what the buffer still holds.
    let mut resumed = hub.attach_standalone().expect("reattach");
    assert_eq!(ids(&drain(&mut resumed)), vec!["0/39", "0/40"]);
}

#[tokio::test(start_paused = true)]
async fn idle_time_runs_from_the_last_activity_and_stops_while_connected() {
    use std::time::Duration;
    let hub = StreamHub::new(8);
    tokio::time::advance(Duration::from_secs(3)).await;
    assert_eq!(hub.idle_for(Instant::now()), Some(Duration::from_secs(3)));
    // A request restarts the clock.
    hub.touch();
    tokio::time::advance(Duration::from_millis(999)).await;
    assert_eq!(
        hub.idle_for(Instant::now()),
        Some(Duration::from_millis(999))
    );
    // An open connection keeps the session busy however long it lasts.
    let guard = hub.connection_guard();
    tokio::time::advance(Duration::from_secs(3600)).await;
    assert_eq!(hub.idle_for(Instant::now()), None);
    // Closing it counts as activity.
    drop(guard);
    assert_eq!(hub.idle_for(Instant::now()), Some(Duration::ZERO));
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(hub.idle_for(Instant::now()), Some(Duration::from_secs(2)));
}
