# /// rlgpt-skill
# name = "collect_stone"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "walk to the nearest stone and do until 1 stone is held"
# made_in = "session 4, iteration 1"
# [record]
# calls = 7169
# steps = 18721
# end_reasons = {"returned" = 4638, "episode ended" = 76, "abandoned" = 16}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}, "collect_stone" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 53, "episodes" = 58, "best" = 0.9062}, "make_stone_sword" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 54, "episodes" = 60, "best" = 0.9062}, "collect_coal" = {"measure" = "success_rate", "evaluations" = 9, "successes" = 310, "episodes" = 574, "best" = 0.625}, "survive_night" = {"measure" = "success_rate", "evaluations" = 5, "successes" = 1, "episodes" = 320, "best" = 0.0156}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 14, "episodes" = 64, "best" = 0.2188}, "eat_plant" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 0, "episodes" = 128, "best" = 0.0}}
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
    return ctx.has("stone")
