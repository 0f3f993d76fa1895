"""A whole bot for ``citylog engine`` (docs/engine-protocol.md): it creates a game
and plays every seat at random, each from its own player's view.

    python docs/examples/random_bot.py [GAME] [PLAYERS] [SEED]

Options passed to ``citylog`` itself (``--db FILE``) go in ``CITYLOG_DB``.
"""

import json
import random
import subprocess
import sys

kind = sys.argv[1] if len(sys.argv) > 1 else "card-city"
players = int(sys.argv[2]) if len(sys.argv) > 2 else 2
seed = sys.argv[3] if len(sys.argv) > 3 else "example"

engine = subprocess.Popen(["citylog", "engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def ask(**request):
    engine.stdin.write(json.dumps(request) + "\n")
    engine.stdin.flush()
    answer = json.loads(engine.stdout.readline())
    if not answer["ok"]:
        raise SystemExit(answer["error"]["message"])
    return answer


assert ask(op="hello")["protocol"] == "citylog-engine/1"
rng = random.Random(seed)
game = ask(op="new", game=kind, players=players, seed=seed)
moves = 0
while not game["over"]:
    player = game["to_act"][0]
    mine = ask(op="position", game=game["game_id"], **{"as": player})
    command = rng.choice(mine["legal"][player])
    ask(op="move", game=game["game_id"], player=player, command=command, seq=mine["seq"])
    moves += 1
    game = ask(op="position", game=game["game_id"])
print(json.dumps({"game_id": game["game_id"], "moves": moves, "result": game["result"]}))
ask(op="quit")
engine.wait()
