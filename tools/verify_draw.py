#!/usr/bin/env python3
"""Recompute a Vestibule lottery draw on public randomness, without Vestibule.

Usage:  python3 tools/verify_draw.py RECORD.json [--relay URL]

RECORD.json is a draw's public record (format "vestibule-draw/3"), as served at
GET /api/public/programs/{slug}/draws/{drawId}. Python's standard library only.

Checked here, by the recipe in Vestibule's README ("Lottery draws"):
  * the stretch of the audit chain in the record (the draw's opening to its close) links
    event by event, and its first event chains the hash of the draw's fixed fields;
  * the beacon round is scheduled after the close, the close before the round, the run after;
  * the tickets hash: the rule, then every ticket with its exclusion mark;
  * every excluded ticket names a chained event between the opening and the close that
    moved its entry out of the queue (declined, withdrawn, selected);
  * randomness = SHA-256(signature), and the winners are the first eligible tickets by
    ascending HMAC-SHA256(randomness, draw id || ticket).
Not checked here: the BLS signature itself (it needs pairing arithmetic). With --relay,
the round's signature is compared with what a drand relay publishes (any relay will do,
e.g. https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971
for quicknet); `vestibule verify-draw` checks the pairing offline.

Prints "FAIL  <reason>" per problem, or "ok ..." and one "winner N TICKET" line per
winner in draw order; exits 1 when anything fails.
"""

import datetime
import hashlib
import hmac
import json
import struct
import sys
import urllib.request
import uuid

FORMAT = "vestibule-draw/3"
QUICKNET = {
    "publicKey": "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
    "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
    "genesis": 1692803367,
    "period": 3,
    "scheme": "bls-unchained-g1-rfc9380",
}
EXCLUDING = {"declined", "withdrawn", "selected"}
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def sha256(data):
    return hashlib.sha256(data).digest()


def ticket(program_id, entry_id):
    return sha256(uuid.UUID(program_id).bytes + uuid.UUID(entry_id).bytes)


def micros(text):
    """An RFC 3339 time as microseconds since the Unix epoch."""
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (moment - EPOCH) // datetime.timedelta(microseconds=1)


def canonical(event, program_id):
    """An audit event's canonical bytes, version 1 (README, "Audit chain")."""

    def an_id(value):
        return b"\x00" if value is None else b"\x01" + uuid.UUID(value).bytes

    def text(value):
        data = value.encode("utf-8")
        return struct.pack(">I", len(data)) + data

    return (
        b"\x01"
        + struct.pack(">q", event["id"])
        + an_id(program_id)
        + struct.pack(">q", event["chainSeq"])
        + struct.pack(">q", event["prevId"] or 0)
        + an_id(event["entryId"])
        + text(event["actorKind"])
        + an_id(event["actorStaffId"])
        + text(event["type"])
        + struct.pack(">q", micros(event["at"]))
        + text(event["details"])
    )


def rule(record):
    return (record["filter"].get("source") or "", record["filter"].get("flag") or "")


def fixed_text(record):
    source, flag = rule(record)
    beacon = record["beacon"]
    fields = [
        ("draw", record["drawId"]), ("program", record["programId"]), ("winners", record["winners"]),
        ("source", source), ("flag", flag), ("openedAt", record["openedAt"]),
        ("closesAt", record["closesAt"]), ("publicKey", beacon["publicKey"]), ("genesis", beacon["genesis"]),
        ("period", beacon["period"]), ("scheme", beacon["scheme"]), ("round", beacon["round"]),
    ]
    return FORMAT + "\n" + "".join(f"{name}={value}\n" for name, value in fields)


def tickets_hash(record, tickets, excluded):
    source, flag = rule(record)
    data = f"{FORMAT}\ndraw={record['drawId']}\nsource={source}\nflag={flag}\n".encode("utf-8")
    for t in tickets:
        data += t + (b"\x01" if t in excluded else b"\x00")
    return sha256(data).hex()


def draw_order(randomness, draw_id, tickets):
    def rank(t):
        return (hmac.new(randomness, uuid.UUID(draw_id).bytes + t, hashlib.sha256).digest(), t)

    return sorted(tickets, key=rank)


def detail(event, name):
    value = json.loads(event["details"]).get(name)
    return value if value is None or isinstance(value, str) else json.dumps(value)


def check_events(record, problems):
    """The chain stretch: intact, linked, opening this draw with its fixed hash, closing it."""
    events = record["events"]
    if not events:
        problems.append("the record has no chained opening event")
        return {}
    for i, event in enumerate(events):
        if sha256(bytes.fromhex(event["prevHash"]) + canonical(event, record["programId"])).hex() != event["hash"]:
            problems.append(f"event {event['id']} was edited (its hash does not match its contents)")
        if i > 0:
            before = events[i - 1]
            if (event["prevId"], event["prevHash"], event["chainSeq"]) != (
                    before["id"], before["hash"], before["chainSeq"] + 1):
                problems.append(f"event {event['id']} does not follow event {before['id']} in the chain")
    first, last = events[0], events[-1]
    if first["type"] != "draw_opened" or detail(first, "drawId") != record["drawId"]:
        problems.append("the first event is not this draw's opening")
    elif detail(first, "fixed") != sha256(fixed_text(record).encode("utf-8")).hex():
        problems.append("a fixed field (winners, rule, times or beacon) differs from the one chained at the opening")
    if record["closedAt"] is not None:
        if len(events) < 2 or last["type"] != "draw_closed" or detail(last, "drawId") != record["drawId"]:
            problems.append("the last event is not this draw's close")
        elif detail(last, "ticketsHash") != record["ticketsHash"] or detail(last, "tickets") != str(
                len(record["tickets"])):
            problems.append("the tickets differ from those chained at the close (the ticket list was altered)")
    elif len(events) != 1:
        problems.append("a draw not closed carries only its opening event")
    return {event["id"]: (i, event) for i, event in enumerate(events)}


def check_state(record):
    closed = record["closedAt"] is not None and record["ticketsHash"] is not None
    not_closed = record["closedAt"] is None and record["ticketsHash"] is None and not record["tickets"] \
        and not record["excluded"]
    beacon = record["beacon"]
    ran = record["runAt"] is not None and beacon["signature"] is not None and beacon["randomness"] is not None
    not_run = record["runAt"] is None and beacon["signature"] is None and beacon["randomness"] is None \
        and not record["drawn"] and not record["notSelected"]
    cancelled = record["cancelledAt"] is not None and record["cancelReason"] is not None
    not_cancelled = record["cancelledAt"] is None and record["cancelReason"] is None
    return {
        "open": not_closed and not_run and not_cancelled,
        "closed": closed and not_run and not_cancelled,
        "run": closed and ran and not_cancelled,
        "cancelled": (closed or not_closed) and not_run and cancelled,
    }.get(record["state"], False)


def check_schedule(record, problems):
    beacon = record["beacon"]
    round_at = (beacon["genesis"] + (beacon["round"] - 1) * beacon["period"]) * 1_000_000
    if micros(beacon["roundAt"]) != round_at:
        problems.append(f"round {beacon['round']} is not scheduled at {beacon['roundAt']} on this chain")
    closes = micros(record["closesAt"])
    if closes < micros(record["openedAt"]) or round_at <= closes:
        problems.append("the beacon round is not scheduled after the close")
    if record["closedAt"] is not None and not closes <= micros(record["closedAt"]) < round_at:
        problems.append("the tickets were not frozen between the close and the round's time")
    if record["runAt"] is not None and micros(record["runAt"]) < round_at:
        problems.append("the draw ran before its round was due")


def verify(record, relay):
    """Returns (problems, winners)."""
    if record.get("format") != FORMAT:
        return [f"unknown format {record.get('format')!r} (this tool reads {FORMAT})"], []
    if not check_state(record):
        return [f"the record's state `{record['state']}` does not match its close, run and cancellation fields "
                "(a draw only moves open -> closed -> run, or to cancelled; it is never re-opened)"], []
    problems = []
    check_schedule(record, problems)
    events = check_events(record, problems)
    tickets = [bytes.fromhex(t) for t in record["tickets"]]
    if any(a >= b for a, b in zip(tickets, tickets[1:])):
        problems.append("the tickets are not sorted and distinct")
    excluded = set()
    for item in record["excluded"]:
        t = bytes.fromhex(item["ticket"])
        i, event = events.get(item["eventId"], (None, None))
        if t not in tickets or i is None or not 0 < i < len(record["events"]) - 1 \
                or event["type"] not in EXCLUDING or event["entryId"] is None \
                or ticket(record["programId"], event["entryId"]) != t:
            problems.append(f"ticket {item['ticket']} is excluded without a chained reason between the opening "
                            "and the close")
        excluded.add(t)
    if record["ticketsHash"] is not None and tickets_hash(record, tickets, excluded) != record["ticketsHash"]:
        problems.append("the rule, tickets and exclusions do not hash to the tickets hash "
                        "(the ticket list was altered)")
    if record["state"] != "run":
        return problems, []
    beacon = record["beacon"]
    signature = bytes.fromhex(beacon["signature"])
    randomness = sha256(signature)
    if randomness.hex() != beacon["randomness"]:
        problems.append("the randomness is not SHA-256 of the beacon signature")
    eligible = [t for t in tickets if t not in excluded]
    winners = [t.hex() for t in draw_order(randomness, record["drawId"], eligible)[:record["winners"]]]
    if winners != record["drawn"]:
        problems.append("the drawn tickets are not the first eligible tickets in the beacon's order")
    if relay:
        url = f"{relay.rstrip('/')}/public/{beacon['round']}"
        with urllib.request.urlopen(url, timeout=10) as reply:
            published = json.load(reply)
        if published.get("signature") != beacon["signature"]:
            problems.append(f"the relay publishes another signature for round {beacon['round']}")
    return problems, winners


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--relay"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        record = json.load(f)
    relay = argv[3] if len(argv) == 4 else None
    try:
        problems, winners = verify(record, relay)
    except (KeyError, TypeError, ValueError) as e:
        problems, winners = [f"the record is malformed ({type(e).__name__}: {e})"], []
    for problem in problems:
        print(f"FAIL  {problem}")
    if problems:
        return 1
    beacon = record["beacon"]
    chain = "drand quicknet" if all(beacon[k] == v for k, v in QUICKNET.items()) else \
        "a drand chain other than quicknet (check its public key, genesis and period)"
    print(f"ok    draw {record['drawId']} ({record['state']}): round {beacon['round']} of {chain} due "
          f"{beacon['roundAt']}; {len(record['tickets'])} tickets, {len(record['excluded'])} excluded each by a "
          f"chained event, {len(winners)} drawn as recomputed")
    for n, t in enumerate(winners, 1):
        print(f"winner {n} {t}")
    if record["state"] == "run" and not relay:
        print(f"note  the BLS signature is not checked here: compare it with a relay's "
              f".../public/{beacon['round']} (or pass --relay URL)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
