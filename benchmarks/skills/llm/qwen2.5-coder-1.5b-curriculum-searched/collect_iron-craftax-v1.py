# /// rlgpt-skill
# name = "collect_iron"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "`do` facing iron, 3 times (needs 1 stone_pickaxe in the inventory); 3 iron for make_iron_pickaxe, make_iron_sword"
# made_in = "session 20, iteration 1"
# [record]
# calls = 2378
# steps = 0
# end_reasons = {}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 54, "episodes" = 189, "best" = 0.3438}, "make_iron_pickaxe" = {"measure" = "success_rate", "evaluations" = 3, "successes" = 11, "episodes" = 191, "best" = 0.1094}, "make_iron_sword" = {"measure" = "success_rate", "evaluations" = 2, "successes" = 3, "episodes" = 128, "best" = 0.0469}}
# ///
def act(ctx):
    for _ in range(3):
        yield from ctx.collect('iron')
        yield from ctx.make('iron_pickaxe')
        yield from ctx.make('iron_sword')
