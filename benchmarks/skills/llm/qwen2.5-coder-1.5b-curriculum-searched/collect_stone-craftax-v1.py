# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "`do` facing stone, once (needs 1 wood_pickaxe in the inventory)"
# made_in = "session 5, iteration 1"
# [record]
# calls = 13489
# steps = 0
# end_reasons = {}
# tasks = {"collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "place_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 59, "best" = 0.9062}, "make_stone_pickaxe" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "place_furnace" = {"measure" = "success_rate", "evaluations" = 7, "successes" = 53, "episodes" = 443, "best" = 0.9062}, "collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 54, "episodes" = 189, "best" = 0.3438}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
# ///
def act(ctx):
    stone = ctx.nearest("stone")
    if stone is None:
        yield from ctx.explore(6)
        return False
    if not (yield from ctx.go_to(stone)):
        return False
    yield from ctx.face(stone)
    for _ in range(1):
        yield Action.DO
    return ctx.has("wood_pickaxe")
