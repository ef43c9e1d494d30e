//! The rooms under hostile load, small and quick: the quotas per address,
//! the expiry of rooms nobody joined, the invite claimed once and seats
//! kept, the move clock, the reserve of rooms and of spectators' places,
//! empty rooms making way, and the caps on seats and on spectators. Every limit is set
//! short through `ServerLimits` and `RoomLimits`; clients from other
//! addresses bind 127.0.0.x (all of 127/8 is loopback).

use crate::hostile;

use std::time::Duration;

use hostile::{
    JSON, claim, close_reason, me, other, post_room, quick, request, serve, start, ws_from, ws_seat,
};
use serde_json::json;
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::http::{AppState, ServerLimits};
use solvedb_tests::committed_tables;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_per_address_quota_and_creation_rate() {
    let rooms = RoomLimits {
        per_address: 2,
        create_burst: 3,
        creates_per_second: 0.001,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    post_room(&server, other(1)).await;
    post_room(&server, other(1)).await;
    let (status, _, json) = request(
        &server,
        other(1),
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(
        json["error"].as_str().unwrap().contains("rooms open"),
        "{json}"
    );
    // Another address has its own quota; its rate runs out after 3.
    for _ in 0..2 {
        post_room(&server, other(2)).await;
    }
    let many = RoomLimits {
        per_address: 100,
        create_burst: 3,
        creates_per_second: 0.001,
        ..RoomLimits::default()
    };
    server.stop().await;
    let server = start(quick(ServerLimits::default()), many).await;
    for _ in 0..3 {
        post_room(&server, other(3)).await;
    }
    let (status, _, json) = request(
        &server,
        other(3),
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    post_room(&server, other(4)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_nobody_joined_expires_sooner() {
    let rooms = RoomLimits {
        unjoined: Duration::from_millis(400),
        idle: Duration::from_secs(60),
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let lonely = post_room(&server, me()).await;
    let joined = post_room(&server, me()).await;
    let (status, _) = claim(&server, &joined).await;
    assert_eq!(status, 200);
    let mut creator = ws_seat(
        &server,
        me(),
        lonely["room"].as_str().unwrap(),
        lonely["token"].as_str(),
        None,
    )
    .await
    .unwrap();
    let (code, why) = close_reason(&mut creator).await;
    assert_eq!(
        (code, why.as_str()),
        (1001, "nobody took the invite in time")
    );
    // The room whose invite was taken stays open.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        ws_from(&server, me(), joined["room"].as_str().unwrap(), None)
            .await
            .is_ok()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_invite_is_claimed_once_and_seats_keep_their_places() {
    let rooms = RoomLimits {
        connections: 4,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let made = post_room(&server, me()).await;
    // The creator gets one seat; the other is behind the invite.
    assert!(made["seats"].get("second").is_none(), "{made}");
    assert!(
        made["links"]["second"]
            .as_str()
            .unwrap()
            .contains("invite=")
    );
    let room = made["room"].as_str().unwrap().to_owned();
    let wrong =
        json!({"room": room, "invite": format!("/play?room={room}&invite={}", "0".repeat(32))});
    assert_eq!(claim(&server, &wrong).await.0, 400);
    let (status, claimed) = claim(&server, &made).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(claimed["seat"], "second");
    let second = claimed["token"].as_str().unwrap().to_owned();
    let (status, again) = claim(&server, &made).await;
    assert_eq!(
        (status, again["kind"].as_str()),
        (400, Some("request")),
        "{again}"
    );
    // Two players, two spectators: the room's 4 connections, and no more
    // spectators; a player who drops comes back.
    let first = made["token"].as_str().unwrap().to_owned();
    let mut x = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    let o = ws_seat(&server, me(), &room, Some(&second), None)
        .await
        .unwrap();
    let _s1 = ws_from(&server, other(1), &room, None).await.unwrap();
    let _s2 = ws_from(&server, other(1), &room, None).await.unwrap();
    assert_eq!(
        ws_from(&server, other(1), &room, None).await.err(),
        Some(503)
    );
    drop(o);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        ws_from(&server, other(2), &room, None).await.err(),
        Some(503)
    );
    let mut o = ws_seat(&server, me(), &room, Some(&second), None)
        .await
        .unwrap();
    o.state_with(0).await;
    // A seat opened again elsewhere: the older connection gives way.
    let mut x2 = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    let (code, why) = close_reason(&mut x).await;
    assert_eq!(
        (code, why.as_str()),
        (1001, "this seat was opened in another window")
    );
    x2.send_move("4").await;
    assert_eq!(o.state_with(1).await["history"], json!(["4"]));
    // The creator holds only their own seat: the friend's move is not
    // theirs to play.
    x2.send_move("0").await;
    let refused = x2.error().await;
    assert!(
        refused["error"].as_str().unwrap().contains("not your turn"),
        "{refused}"
    );
    o.send_move("0").await;
    assert_eq!(x2.state_with(2).await["history"], json!(["4", "0"]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_clock_forfeits_a_stalling_player_once_both_joined() {
    let data = tempfile::tempdir().unwrap();
    let rooms = RoomLimits {
        move_clock: Some(Duration::from_millis(500)),
        ..RoomLimits::default()
    };
    let state = AppState::new(&committed_tables(), quick(ServerLimits::default()))
        .unwrap()
        .with_room_limits(rooms)
        .with_data(data.path())
        .unwrap();
    let server = serve(state).await;
    let made = post_room(&server, me()).await;
    let room = made["room"].as_str().unwrap().to_owned();
    let first = made["token"].as_str().unwrap().to_owned();
    // Alone in the room, the creator has no clock.
    let mut x = ws_seat(&server, me(), &room, Some(&first), None)
        .await
        .unwrap();
    assert!(x.state_with(0).await["clock"].is_null());
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, claimed) = claim(&server, &made).await;
    let mut o = ws_seat(&server, me(), &room, claimed["token"].as_str(), None)
        .await
        .unwrap();
    let state = o.state_with(0).await;
    assert!(state["result"].is_null(), "{state}");
    assert_eq!(state["clock"]["seat"], "first", "{state}");
    // Each seat makes the game's minimum of moves to rank (3 on 3×3),
    // nobody completing a line.
    for (n, (first_seat, cell)) in [
        (true, "4"),
        (false, "0"),
        (true, "1"),
        (false, "7"),
        (true, "3"),
        (false, "5"),
        (true, "2"),
    ]
    .into_iter()
    .enumerate()
    {
        let seat = if first_seat { &mut x } else { &mut o };
        seat.send_move(cell).await;
        x.state_with(n + 1).await;
        o.state_with(n + 1).await;
    }
    // The second player stalls: they forfeit, and the game is recorded.
    let over = loop {
        let state = x.next().await.expect("open");
        if !state["result"].is_null() {
            break state;
        }
    };
    assert_eq!(over["result"]["winner"], "first", "{over}");
    assert_eq!(over["result"]["forfeit"], "second", "{over}");
    assert_eq!(over["recorded"], true, "{over}");
    let (status, _, board) = request(
        &server,
        me(),
        "GET",
        "/api/v1/leaderboard?game=tictactoe",
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);
    let tally: Vec<(u64, u64)> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["wins"].as_u64().unwrap(), e["losses"].as_u64().unwrap()))
        .collect();
    assert!(
        tally.len() == 2 && tally.contains(&(1, 0)) && tally.contains(&(0, 1)),
        "the forfeit counts a win and a loss: {board}"
    );
    server.stop().await;
}

/// A room's id in `made`.
fn id(made: &serde_json::Value) -> &str {
    made["room"].as_str().unwrap()
}

/// `POST /api/v1/rooms` from `source`: its status and answer.
async fn try_room(server: &hostile::Server, source: std::net::IpAddr) -> (u16, serde_json::Value) {
    let (status, _, json) = request(
        server,
        source,
        "POST",
        "/api/v1/rooms",
        &[JSON],
        r#"{"game":"tictactoe"}"#,
    )
    .await;
    (status, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_keep_a_reserve_for_new_addresses_and_empty_rooms_make_way() {
    let rooms = RoomLimits {
        rooms: 4,
        reserve: 2,
        per_address: 2,
        empty: Duration::from_millis(400),
        unjoined: Duration::from_secs(60),
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let claimed = post_room(&server, other(1)).await;
    assert_eq!(claim(&server, &claimed).await.0, 200);
    post_room(&server, other(1)).await;
    // Two open: the last two are kept for addresses with none.
    let lonely = post_room(&server, other(2)).await;
    let (status, json) = try_room(&server, other(2)).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    let kept = post_room(&server, other(3)).await;
    let (status, json) = try_room(&server, other(4)).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "full: {json}"
    );
    // The creator of one is connected; nobody is in the others.
    let _creator = ws_seat(&server, other(3), id(&kept), kept["token"].as_str(), None)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(700)).await;
    // The empty rooms nobody joined closed by themselves; the one with its
    // creator in stays.
    assert_eq!(
        ws_from(&server, other(5), id(&lonely), None).await.err(),
        Some(400)
    );
    assert!(ws_from(&server, other(5), id(&kept), None).await.is_ok());
    // The rooms are still at the reserve line: the claimed but empty room
    // makes way for a new one, and another address's rooms can be made.
    let (status, json) = try_room(&server, other(4)).await;
    assert_eq!(status, 201, "{json}");
    assert_eq!(
        ws_from(&server, other(5), id(&claimed), None).await.err(),
        Some(400)
    );
    let (status, json) = try_room(&server, other(6)).await;
    assert_eq!(status, 201, "{json}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_have_a_quota_per_address_and_never_take_a_seat() {
    let rooms = RoomLimits {
        spectators: 3,
        spectators_per_address: 2,
        spectator_reserve: 1,
        websockets: 4,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let made = post_room(&server, me()).await;
    let room = id(&made).to_owned();
    let mut watchers = Vec::new();
    for _ in 0..2 {
        watchers.push(ws_from(&server, other(1), &room, None).await.unwrap());
    }
    // One address's quota.
    assert_eq!(
        ws_from(&server, other(1), &room, None).await.err(),
        Some(503)
    );
    // Past the reserve line, only an address with none gets in, then the
    // pool is full.
    watchers.push(ws_from(&server, other(2), &room, None).await.unwrap());
    assert_eq!(
        ws_from(&server, other(2), &room, None).await.err(),
        Some(503)
    );
    assert_eq!(
        ws_from(&server, other(3), &room, None).await.err(),
        Some(503)
    );
    // Seats, new and returning, are not refused for the spectators.
    let first = made["token"].as_str().unwrap().to_owned();
    let mut x = ws_seat(&server, other(4), &room, Some(&first), None)
        .await
        .unwrap();
    x.state_with(0).await;
    let (status, claimed) = claim(&server, &made).await;
    assert_eq!(status, 200, "{claimed}");
    let mut o = ws_seat(&server, other(5), &room, claimed["token"].as_str(), None)
        .await
        .unwrap();
    o.state_with(0).await;
    let mut back = ws_seat(&server, other(4), &room, Some(&first), None)
        .await
        .unwrap();
    back.send_move("4").await;
    assert_eq!(o.state_with(1).await["history"], json!(["4"]));
    // A spectator who leaves frees its place for its address.
    drop(watchers.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(ws_from(&server, other(2), &room, None).await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_have_a_cap_of_their_own() {
    let rooms = RoomLimits {
        websockets: 2,
        spectators: 2,
        ..RoomLimits::default()
    };
    let server = start(quick(ServerLimits::default()), rooms).await;
    let a = post_room(&server, me()).await;
    let b = post_room(&server, other(1)).await;
    let c = post_room(&server, other(2)).await;
    let _one = ws_seat(&server, me(), id(&a), a["token"].as_str(), None)
        .await
        .unwrap();
    let two = ws_seat(&server, other(1), id(&b), b["token"].as_str(), None)
        .await
        .unwrap();
    assert_eq!(
        ws_seat(&server, other(2), id(&c), c["token"].as_str(), None)
            .await
            .err(),
        Some(503)
    );
    // Spectators are counted apart: they still get in, up to their own cap.
    let _s1 = ws_from(&server, other(3), id(&c), None).await.unwrap();
    let _s2 = ws_from(&server, other(4), id(&c), None).await.unwrap();
    assert_eq!(
        ws_from(&server, other(5), id(&c), None).await.err(),
        Some(503)
    );
    drop(two);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        ws_seat(&server, other(2), id(&c), c["token"].as_str(), None)
            .await
            .is_ok()
    );
    server.stop().await;
}
