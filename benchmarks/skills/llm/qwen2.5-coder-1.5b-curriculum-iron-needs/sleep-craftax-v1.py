# /// rlgpt-skill
# name = "sleep"
# world = "craftax"
# version = 1
# author = "llm:models/qwen2.5-coder-1.5b.gguf"
# docstring = "sleep until energy is restored"
# made_in = "session 3, iteration 1"
# [record]
# calls = 64
# steps = 2720
# end_reasons = {"episode ended" = 64}
# tasks = {"wake_up" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 64, "episodes" = 64, "best" = 1.0}}
# ///
def act(ctx):
    while ctx.inventory.get('energy', 0) < 9:
        yield Action.SLEEP
    return False