# /// rlgpt-skill
# name = "make_stone_pickaxe"
# world = "craftax"
# version = 1
# author = "llm:qwen2.5-coder-1.5b"
# docstring = "make a stone pickaxe near the table"
# made_in = "session 4, iteration 1"
# [record]
# calls = 1950
# steps = 2030
# end_reasons = {"returned" = 57, "episode ended" = 5, "abandoned" = 3, "step budget" = 1}
# tasks = {"collect_iron" = {"measure" = "success_rate", "evaluations" = 4, "successes" = 7, "episodes" = 256, "best" = 0.0469}, "eat_cow" = {"measure" = "success_rate", "evaluations" = 1, "successes" = 15, "episodes" = 45, "best" = 0.3438}}
# ///
def act(ctx):
    if not (yield from ctx.go_to((3, 4))):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.go_to((3, 5))):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.go_to((3, 6))):
        return False
    if not (yield from ctx.make('stone_pickaxe')):
        return False
    if not (yield from ctx.go_to((3, 7))):
        return False
    if not (yield from ctx.go_to((3, 8))):
        return False
    if not (yield from ctx.go_to((3, 9))):
        return False
    if not (yield from ctx.go_to((3, 10))):
        return False
    if not (yield from ctx.go_to((3, 11))):
        return False
    if not (yield from ctx.go_to((3, 12))):
        return False
    if not (yield from ctx.go_to((3, 13))):
        return False
    if not (yield from ctx.go_to((3, 14))):
        return False
    if not (yield from ctx.go_to((3, 15))):
        return False
    if not (yield from ctx.go_to((3, 16))):
        return False
    if not (yield from ctx.go_to((3, 17))):
        return False
    if not (yield from ctx.go_to((3, 18))):
        return False
    if not (yield from ctx.go_to((3, 19))):
        return False
    if not (yield from ctx.go_to((3, 20))):
        return False
    if not (yield from ctx.go_to((3, 21))):
        return False
    if not (yield from ctx.go_to((3, 22))):
        return False
    if not (yield from ctx.go_to((3, 23))):
        return False
    if not (yield from ctx.go_to((3, 24))):
        return False
    if not (yield from ctx.go_to((3, 25))):
        return False
    if not (yield from ctx.go_to((3, 26))):
        return False
    if not (yield from ctx.go_to((3, 27))):
        return False
    if not (yield from ctx.go_to((3, 28))):
        return False
    if not (yield from ctx.go_to((3, 29))):
        return False
    if not (yield from ctx.go_to((3, 30))):
        return False
    if not (yield from ctx.go_to((3, 31))):
        return False
    if not (yield from ctx.go_to((3, 32))):
        return False
    if not (yield from ctx.go_to((3, 33))):
        return False
    if not (yield from ctx.go_to((3, 34))):
        return False
    if not (yield from ctx.go_to((3, 35))):
        return False
    if not (yield from ctx.go_to((3, 36))):
        return False
    if not (yield from ctx.go_to((3, 37))):
        return False
    if not (yield from ctx.go_to((3, 38))):
        return False
    if not (yield from ctx.go_to((3, 39))):
        return False
    if not (yield from ctx.go_to((3, 40))):
        return False
    if not (yield from ctx.go_to((3, 41))):
        return False
    if not (yield from ctx.go_to((3, 42))):
        return False
    if not (yield from ctx.go_to((3, 43))):
        return False
    if not (yield from ctx.go_to((3, 44))):
        return False
    if not (yield from ctx.go_to((3, 45))):
        return False
    if not (yield from ctx.go_to((3, 46))):
        return False
    if not (yield from ctx.go_to((3, 47))):
        return False
    if not (yield from ctx.go_to((3, 48))):
        return False
    if not (yield from ctx.go_to((3, 49))):
        return False
    if not (yield from ctx.go_to((3, 50))):
        return False
    if not (yield from ctx.go_to((3, 51))):
        return False
    if not (yield from ctx.go_to((3, 52))):
        return False
    if not (yield from ctx.go_to((3, 53))):
        return False
    if not (yield from ctx.go_to((3, 54))):
        return False
    if not (yield from ctx.go_to((3, 55))):
        return False
    if not (yield from ctx.go_to((3, 56))):
        return False
    if not (yield from ctx.go_to((3, 57))):
        return False
    if not (yield from ctx.go_to((3, 58))):
        return False
