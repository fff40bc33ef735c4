#!/usr/bin/env python3
"""Generate an NSKeyedArchiver archive shaped like a football-coach game save.

Benchmark input for archive-tool decode/encode (against plistutil). The graph is
what the real game produces: deep, shared and cyclic.

  League  -> name, season (inline int), teams (NSMutableArray), games (NSMutableArray)
  Team    -> name, city (NSString), wins/losses (inline int), rating (inline real),
             founded (NSDate: NS.time), logo (NSData 16-64 bytes, by UID),
             players (NSArray of Player), games (NSMutableArray of Game -> cycle)
  Player  -> name, number (inline int), position (shared NSString),
             stats (NSDictionary string -> NSNumber), team (UID back to Team -> cycle)
  Game    -> home/away (UIDs of Team), date (NSDate), homeScore/awayScore (inline int),
             records (NSMutableArray of Record)
  Record  -> kind (shared NSString), minute (inline int),
             play (inline data: a packed C struct, as encodeBytes:length:forKey: writes it)

As Apple's archiver does: $objects[0] is "$null", one class entry per class (shared),
$classes chains end in NSObject, equal NSNumbers and constant strings are one object.

Output is deterministic for a given (--size-mb, --seed, --format). --size-mb is a target:
the team count is fitted on small pilot archives, so the result is within a few
percent. Binary output uses a streaming writer (below), not plistlib, for speed and
so that the $objects layout is exactly what is built here.
"""
import argparse
import plistlib
import random
import struct
import sys
import time

ARCHIVER = "NSKeyedArchiver"
VERSION = 100000

POSITIONS = ["QB", "RB", "WR", "TE", "OL", "DL", "LB", "CB", "S", "K", "P"]
STAT_KEYS = ["yards", "touchdowns", "tackles", "interceptions", "fumbles", "rating"]
RECORD_KINDS = ["pass", "run", "punt", "kick", "penalty", "turnover", "timeout"]
SYLLABLES = ["ka", "lo", "mi", "ra", "to", "ven", "dar", "bel", "sor", "qui", "zan", "per",
             "ix", "ul", "mon", "ta", "gre", "wil", "ston", "ford"]
# --text cjk: names of Japanese and Chinese syllables with accented letters and emoji, stored as
# UTF-16 strings, as archives written in those languages hold them.
CJK_SYLLABLES = ["東", "京", "大", "阪", "名", "古", "屋", "札", "幌", "福", "岡", "横", "浜", "神",
                 "戸", "さ", "く", "ら", "é", "😀"]
PLAYERS_PER_TEAM = 40
GAMES_PER_TEAM = 4          # games generated per team added (each game has 2 teams)
RECORDS_PER_GAME = 30
REF_DATE = 599_616_000.0    # 2020-01-01 in seconds since 2001-01-01


class Archive:
    """Builds the $objects table. Plain values are appended as they are; dicts are
    object entries whose values may be plistlib.UID (references) or inline scalars."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}
        self.shared = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def reserve(self):
        """A slot filled later: lets cyclic objects refer to each other."""
        return self.add(None)

    def put(self, uid, value):
        self.objects[uid.data] = value

    def cls(self, name, chain=None):
        uid = self.classes.get(name)
        if uid is None:
            uid = self.add({"$classname": name, "$classes": chain or [name, "NSObject"]})
            self.classes[name] = uid
        return uid

    def shared_value(self, value):
        """One object per equal value (type-aware: 1, 1.0 and True stay distinct)."""
        key = (type(value), value)
        uid = self.shared.get(key)
        if uid is None:
            uid = self.shared[key] = self.add(value)
        return uid

    def obj(self, classname, fields, chain=None, uid=None):
        entry = {"$class": self.cls(classname, chain)}
        entry.update(fields)
        if uid is None:
            return self.add(entry)
        self.put(uid, entry)
        return uid

    def array(self, uids, mutable=False, uid=None):
        if mutable:
            return self.obj("NSMutableArray", {"NS.objects": list(uids)},
                            ["NSMutableArray", "NSArray", "NSObject"], uid)
        return self.obj("NSArray", {"NS.objects": list(uids)}, uid=uid)

    def date(self, t):
        return self.obj("NSDate", {"NS.time": float(t)})

    def dictionary(self, pairs):
        return self.obj("NSDictionary", {"NS.keys": [k for k, _ in pairs],
                                         "NS.objects": [v for _, v in pairs]})

    def plist(self, root):
        return {"$archiver": ARCHIVER, "$version": VERSION,
                "$top": {"root": root}, "$objects": self.objects}


def build(n_teams, seed, shape="game", text="latin"):
    """shape "game": the save described above. "league": the same classes with many small
    shared objects and full-precision reals: 40 games per team (each referenced from two
    schedules and the league's list) of one record each, 8 players per team, reals with all
    17 significant digits."""
    rng = random.Random(seed)
    a = Archive()
    league_shape = shape == "league"
    games_per_team = 40 if league_shape else GAMES_PER_TEAM
    records_per_game = 1 if league_shape else RECORDS_PER_GAME
    players_per_team = 8 if league_shape else PLAYERS_PER_TEAM

    def real(low, high, digits):
        value = rng.uniform(low, high)
        return value if league_shape else round(value, digits)

    def name(parts):
        syllables = CJK_SYLLABLES if text == "cjk" else SYLLABLES
        return "".join(rng.choice(syllables) for _ in range(parts)).capitalize()

    league = a.reserve()
    teams = [a.reserve() for _ in range(n_teams)]
    team_games = [[] for _ in range(n_teams)]
    games = []
    for g in range(n_teams * games_per_team // 2):
        home = rng.randrange(n_teams)
        away = (home + 1 + rng.randrange(n_teams - 1)) % n_teams
        records = []
        for _ in range(records_per_game):
            play = struct.pack("<hhff", rng.randrange(-20, 100), rng.randrange(1, 5),
                               rng.random() * 100.0, rng.random())
            records.append(a.obj("Record", {
                "kind": a.shared_value(rng.choice(RECORD_KINDS)),
                "minute": rng.randrange(0, 60),
                "play": play,
            }))
        gid = a.obj("Game", {
            "home": teams[home], "away": teams[away],
            "date": a.date(REF_DATE + g * 86400.0 + rng.randrange(0, 86400)),
            "homeScore": rng.randrange(0, 50), "awayScore": rng.randrange(0, 50),
            "records": a.array(records, mutable=True),
        })
        games.append(gid)
        team_games[home].append(gid)
        team_games[away].append(gid)

    for t, tid in enumerate(teams):
        players = []
        for _ in range(players_per_team):
            stats = [(a.shared_value(k), a.shared_value(rng.randrange(0, 2000)))
                     for k in STAT_KEYS[:-1]]
            stats.append((a.shared_value("rating"),
                          a.shared_value(real(40.0, 99.0, 1))))
            players.append(a.obj("Player", {
                "name": a.add(name(2) + " " + name(3)),
                "number": rng.randrange(1, 100),
                "position": a.shared_value(rng.choice(POSITIONS)),
                "stats": a.dictionary(stats),
                "team": tid,
            }))
        a.obj("Team", {
            "name": a.add(name(2) + "s"),
            "city": a.add(name(3)),
            "wins": rng.randrange(0, 17), "losses": rng.randrange(0, 17),
            "rating": real(50.0, 100.0, 3),
            "founded": a.date(-rng.randrange(0, 3_000_000_000)),
            "logo": a.add(rng.randbytes(rng.randrange(16, 65))),
            "players": a.array(players),
            "games": a.array(team_games[t], mutable=True),
        }, uid=tid)

    a.obj("League", {
        "name": a.add("National Football League"),
        "season": 2020,
        "teams": a.array(teams, mutable=True),
        "games": a.array(games, mutable=True),
    }, uid=league)
    return a.plist(league)


# ---- binary plist writer (bplist00), streaming, no value de-duplication ----------------
# Every plist value gets its own object, except the keys of object dictionaries
# ("$class", "name", ...), which are interned: the same saving Apple's writer makes.

def _int_bytes(n):
    if n < 0:
        return b"\x13" + struct.pack(">q", n)
    if n < 1 << 8:
        return b"\x10" + struct.pack(">B", n)
    if n < 1 << 16:
        return b"\x11" + struct.pack(">H", n)
    if n < 1 << 32:
        return b"\x12" + struct.pack(">I", n)
    if n < 1 << 63:
        return b"\x13" + struct.pack(">q", n)
    return b"\x14" + struct.pack(">QQ", 0, n)   # 16-byte form for unsigned 64-bit


def _marker(kind, count):
    if count < 15:
        return bytes([kind << 4 | count])
    return bytes([kind << 4 | 0xF]) + _int_bytes(count)


def _uid_bytes(n):
    for size in (1, 2, 4, 8):
        if n < 1 << (8 * size):
            return bytes([0x80 | (size - 1)]) + n.to_bytes(size, "big")
    raise ValueError("UID too large")


class BinaryWriter:
    def __init__(self):
        self.chunks = []
        self.pos = 8            # after b"bplist00"
        self.offsets = []
        self.interned = {}

    def _emit(self, blob):
        self.offsets.append(self.pos)
        self.chunks.append(blob)
        self.pos += len(blob)
        return len(self.offsets) - 1

    def _scalar(self, v):
        if v is True:
            return b"\x09"
        if v is False:
            return b"\x08"
        if isinstance(v, plistlib.UID):
            return _uid_bytes(v.data)
        if isinstance(v, int):
            return _int_bytes(v)
        if isinstance(v, float):
            return b"\x23" + struct.pack(">d", v)
        if isinstance(v, bytes):
            return _marker(0x4, len(v)) + v
        if isinstance(v, str):
            try:
                return _marker(0x5, len(v)) + v.encode("ascii")
            except UnicodeEncodeError:
                u = v.encode("utf-16-be")
                return _marker(0x6, len(u) // 2) + u
        raise TypeError(f"unsupported value {type(v)}")

    def _key(self, k):
        ref = self.interned.get(k)
        if ref is None:
            ref = self.interned[k] = self._emit(self._scalar(k))
        return ref

    def write(self, root, out):
        # Container children are written before their container, so container
        # bodies can be finished at once; refs are fixed at 4 bytes (enough for 4G objects).
        refsize = 4

        def refs(idx):
            return b"".join(struct.pack(">I", i) for i in idx)

        def value(v):
            if isinstance(v, dict):
                ks = [self._key(k) for k in v]
                vs = [value(x) for x in v.values()]
                return self._emit(_marker(0xD, len(v)) + refs(ks) + refs(vs))
            if isinstance(v, list):
                vs = [value(x) for x in v]
                return self._emit(_marker(0xA, len(v)) + refs(vs))
            return self._emit(self._scalar(v))

        top = value(root)
        out.write(b"bplist00")
        for c in self.chunks:
            out.write(c)
        table_at = self.pos
        offsize = 8 if table_at >= 1 << 32 else 4
        fmt = ">Q" if offsize == 8 else ">I"
        out.write(b"".join(struct.pack(fmt, o) for o in self.offsets))
        out.write(struct.pack(">6xBBQQQ", offsize, refsize, len(self.offsets), top, table_at))


def _uids_to_xml(v):
    """plistlib's XML writer has no UID: write the CF$UID dictionary Apple uses."""
    if isinstance(v, plistlib.UID):
        return {"CF$UID": v.data}
    if isinstance(v, dict):
        return {k: _uids_to_xml(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_uids_to_xml(x) for x in v]
    return v


def render(plist, fmt, out):
    if fmt == "binary":
        BinaryWriter().write(plist, out)
    else:
        plistlib.dump(_uids_to_xml(plist), out, fmt=plistlib.FMT_XML, sort_keys=False)


class _Buffer:
    """Collects the output in memory, so its size is known before it is written."""

    def __init__(self):
        self.n = 0
        self.chunks = []

    def write(self, b):
        self.n += len(b)
        self.chunks.append(b)

    def drain(self, out):
        for c in self.chunks:
            out.write(c)
        self.chunks = []


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mb", type=float, default=5.0, help="approximate output size in MB (10^6 bytes)")
    p.add_argument("--out", required=True, help="output file ('-' for stdout)")
    p.add_argument("--format", choices=["binary", "xml"], default="binary")
    p.add_argument("--seed", type=int, default=2020)
    p.add_argument("--teams", type=int, help="exact team count (overrides --size-mb)")
    p.add_argument("--shape", choices=["game", "league"], default="game",
                   help="game: the save above; league: many small shared games, full-precision reals")
    p.add_argument("--text", choices=["latin", "cjk"], default="latin",
                   help="latin: ASCII names; cjk: names in CJK syllables, accents and emoji (UTF-16 strings)")
    args = p.parse_args()

    started = time.monotonic()
    target = args.size_mb * 1e6

    def rendered(n):
        buf = _Buffer()
        render(build(n, args.seed, args.shape, args.text), args.format, buf)
        return buf

    if args.teams:
        n_teams = args.teams
        buf = rendered(n_teams)
    else:
        # Size is nearly affine in the team count (reference widths grow a little with the
        # object count): fit on two pilots, then correct once if more than 2% off.
        lo, hi = rendered(16).n, rendered(64).n
        per_team = (hi - lo) / 48
        n_teams = max(2, round((target - lo) / per_team) + 16)
        buf = rendered(n_teams)
        if abs(buf.n - target) > 0.02 * target and n_teams > 2:
            n_teams = max(2, round(n_teams * target / buf.n))
            buf = rendered(n_teams)

    if args.out == "-":
        buf.drain(sys.stdout.buffer)
    else:
        with open(args.out, "wb") as f:
            buf.drain(f)
    print(f"gen_game_save: {n_teams} teams, {buf.n} bytes, {args.format}, "
          f"{time.monotonic() - started:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
