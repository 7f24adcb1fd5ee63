"""What a world tells agents about itself: :class:`WorldDocs` (rules, actions, achievements,
observation, and the tech tree the builtin agent and critic plan with).

Each world class answers ``World.documentation()``; the registry's
:meth:`~rlgpt_tui.envs.registry.WorldInfo.documentation` gives it without importing the
backend. Crafter and Craftax-Classic share Crafter's text, built from Crafter's own rule file;
the tech tree is data (``assets/worlds/crafter_tech_tree.toml``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

from rlgpt_tui import ASSETS_DIR, read_asset
from rlgpt_tui.envs.vocabulary import ACHIEVEMENTS, ACTION_NAMES, INVENTORY_ITEMS

TECH_TREE_FILE = ASSETS_DIR / "worlds" / "crafter_tech_tree.toml"


@dataclass(frozen=True)
class TechTree:
    """A world's tech tree as the builtin agent plans with it: what each collecting
    achievement reaches, the library's skills and helpers, what searches for what, and the
    skills (and advice) that answer each way of dying."""

    targets: dict[str, str] = field(default_factory=dict)  # achievement -> block or creature
    skills: dict[str, str] = field(default_factory=dict)  # skill -> what it does
    helpers: tuple[str, ...] = ()  # skills beside one per achievement
    situational: frozenset[str] = frozenset()  # skills whose moment may not come in a run
    search_helpers: dict[str, str] = field(default_factory=dict)  # achievement -> helper
    # the helper that keeps the player alive (survive): a composed plan runs it before a step
    # when survival is due (rlgpt_tui/skills/guard.py), and it is a survival goal's one step
    before_each_step: str = ""
    deaths: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)

    def common_deaths(self, ends: dict[str, int], among: int) -> list[tuple[str, int]]:
        """The ways of dying in ``ends`` (episode end -> episodes) that this tree answers
        and that ended an eighth or more of ``among`` episodes, commonest first."""
        return [
            (end, n)
            for end, n in sorted(ends.items(), key=lambda kv: -kv[1])
            if end in self.deaths and n >= max(1, among // 8)
        ]


@dataclass(frozen=True)
class Recipes:
    """A world's recipes as data: what collecting each block needs and gives, what placing
    and making each item uses (and where, or near what), and which steps restore a stat
    (eating, drinking, sleeping). :meth:`steps_to` orders them into the steps an
    achievement needs, from nothing in the inventory."""

    collect: dict[str, tuple[dict[str, int], dict[str, int]]]  # block -> (needs, gives)
    place: dict[str, tuple[dict[str, int], tuple[str, ...]]]  # item -> (uses, onto)
    make: dict[str, tuple[dict[str, int], tuple[str, ...]]]  # item -> (uses, near)
    # step -> (the stat it restores, what restores it in sight or ""): eat_cow -> food, cow
    restores: dict[str, tuple[str, str]] = field(default_factory=dict)

    def amended(
        self,
        place: dict[str, dict[str, int]] | None = None,
        make: dict[str, dict[str, int]] | None = None,
    ) -> Recipes:
        """These recipes with some items' materials replaced (a world that changes a
        few of another world's recipes, e.g. Craftax-Classic's of Crafter's)."""
        placed = {
            i: (dict((place or {}).get(i, uses)), where) for i, (uses, where) in self.place.items()
        }
        made = {i: (dict((make or {}).get(i, uses)), near) for i, (uses, near) in self.make.items()}
        return Recipes(self.collect, placed, made, self.restores)

    def source_of(self, item: str) -> str | None:
        """The block that gives ``item`` when collected (e.g. wood: tree)."""
        return next((b for b, (_, gives) in self.collect.items() if item in gives), None)

    def steps_to(self, achievement: str) -> list[Step]:
        """The steps that unlock ``achievement`` from an empty inventory, in order (a
        material's collecting merged into its first step, with everything it is for);
        empty where the recipes do not say (e.g. eat_cow, defeat_zombie)."""
        return self.steps_for([achievement])

    def steps_for(
        self, achievements: list[str], other: Callable[[str], Step] | None = None
    ) -> list[Step]:
        """The steps that unlock each of ``achievements`` in turn, from an empty inventory
        (:meth:`steps_to` for several, sharing what earlier ones made); an achievement the
        recipes do not cover gets ``other(achievement)`` in its place (left out without)."""
        steps: list[Step] = []
        placed: set[str] = set()

        def collect(item: str, count: int, purpose: str) -> None:
            block = self.source_of(item)
            if block is None:
                raise LookupError(item)
            needs = self.collect[block][0]
            for tool in needs:
                obtain(tool, 1, f"collect_{item}")
            first = next((s for s in steps if s.name == f"collect_{item}"), None)
            if first is None:
                steps.append(Step(f"collect_{item}", block, count, [purpose], needs))
            else:
                first.count += count
                first.purposes.append(purpose)

        def obtain(item: str, count: int, purpose: str) -> None:
            if item in self.make:
                made = next((s for s in steps if s.name == f"make_{item}"), None)
                if made is None:
                    build("make", item)
            else:
                collect(item, count, purpose)

        def build(kind: str, item: str) -> None:
            uses, where = (self.make if kind == "make" else self.place)[item]
            if kind == "make":
                for station in where:
                    if station not in placed:
                        build("place", station)
            for material, count in uses.items():
                obtain(material, count, f"{kind}_{item}")
            if kind == "place":
                placed.add(item)
            steps.append(Step(f"{kind}_{item}", item, 1, [], uses, where))

        for achievement in achievements:
            kind, _, item = achievement.partition("_")
            done = [s.name for s in steps]
            if achievement in done:
                continue
            try:
                if kind == "collect" and self.source_of(item):
                    collect(item, 1, achievement)
                elif kind in ("place", "make") and item in (
                    self.place if kind == "place" else self.make
                ):
                    build(kind, item)
                elif other is not None:
                    steps.append(other(achievement))
            except LookupError:
                del steps[len(done) :]
                if other is not None:
                    steps.append(other(achievement))
        return steps


@dataclass
class Step:
    """One step toward an achievement: collect ``count`` of a material from ``target`` (a
    block), or place or make the item ``target``."""

    name: str  # e.g. collect_wood, place_table, make_wood_pickaxe
    target: str
    count: int
    purposes: list[str]  # collect: what the material is for
    uses: dict[str, int]  # collect: the tools it needs; place/make: the materials used
    where: tuple[str, ...] = ()  # place: onto these tiles; make: near these stations
    description: str = ""  # a step the recipes do not cover (eat_cow): what it does

    @property
    def kind(self) -> str:
        """collect, place or make."""
        return self.name.partition("_")[0]

    @property
    def product(self) -> str:
        """The item the step adds (wood for collect_wood, table for place_table)."""
        return self.name.partition("_")[2]

    def helper(self) -> str:
        """The ``ctx`` helper call that does the step once, e.g.
        ``yield from ctx.collect('tree')`` or ``yield from ctx.make('wood_pickaxe')``."""
        return f"yield from ctx.{self.kind}({self.target!r})"

    def text(self) -> str:
        if self.description:
            return f"{self.name}: {self.description}"
        if self.name.startswith("collect_"):
            item = self.name.removeprefix("collect_")
            needs = f" (needs {_fmt(self.uses)} in the inventory)" if self.uses else ""
            times = "once" if self.count == 1 else f"{self.count} times"
            purposes = [p for p in self.purposes if p != self.name]
            usage = f"; {self.count} {item} for {', '.join(purposes)}" if purposes else ""
            stat = (  # else code may wait for `drink` in the inventory
                f" ({item} is a stat, ctx.view.{item}, not an inventory item)"
                if item not in INVENTORY_ITEMS
                else ""
            )
            return f"{self.name}: `do` facing {self.target}, {times}{needs}{usage}{stat}"
        if self.name.startswith("place_"):
            return (
                f"{self.name}: face a free tile ({', '.join(self.where)}) and use the "
                f"{self.name} action (uses {_fmt(self.uses)})"
            )
        return (
            f"{self.name}: within a few tiles of {' and '.join(self.where)}, use the "
            f"{self.name} action (uses {_fmt(self.uses)})"
        )


@dataclass(frozen=True)
class WorldDocs:
    """A world's documentation, in sections; :meth:`text` is what prompts show."""

    world: str  # its name as prompts say it
    rules: str
    actions: str
    achievements: str
    observation: str
    tech_tree: TechTree = field(default_factory=TechTree)
    recipes: Recipes | None = None  # None: the world's recipes are not data here

    def steps_to(self, achievement: str | None) -> list[Step]:
        """The steps ``achievement`` needs, from the recipes (none where they do not say)."""
        if self.recipes is None or not achievement:
            return []
        return self.recipes.steps_to(achievement)

    def step(self, name: str) -> Step | None:
        """The recipes' step named ``name`` (collect_stone, place_table, ...), as the last
        step toward the achievement of that name; None where the recipes do not say."""
        steps = self.steps_to(name)
        return steps[-1] if steps and steps[-1].name == name else None

    def survival_steps(self) -> list[Step]:
        """A survival goal's one step: the tech tree's skill that keeps the player alive
        (:attr:`TechTree.before_each_step`, Crafter's ``survive``) with what it does; empty
        where the world names none. Told only that the recipes list no steps, a model plans
        tech-tree steps (go_to_grass, place_plant, ...) for a survival goal."""
        name = self.tech_tree.before_each_step
        return [self._described_step(name)] if name else []

    def _described_step(self, name: str) -> Step:
        """Step ``name`` as the tech tree says its skill does it (no recipe: eat_cow,
        wake_up, survive), with the block or creature it reaches."""
        tree = self.tech_tree
        what = tree.skills.get(name, name.replace("_", " "))
        return Step(name, tree.targets.get(name, ""), 1, [], {}, description=what)

    def score_steps(self) -> list[Step]:
        """A step for every achievement, for a scored task (open-ended play): the recipes'
        steps toward each, in the tech tree's order, and for those the recipes do not cover
        (eat_cow, wake_up) what the tech tree says its skill does; the situational ones
        (whose moment may not come: nothing to fight, nothing ripe) last, so that a plan
        run in turn does not wait on them before the tech tree. Empty without recipes."""
        if self.recipes is None:
            return []
        tree = self.tech_tree
        ordered = [name for name in tree.skills if name in ACHIEVEMENTS]
        ordered += [name for name in ACHIEVEMENTS if name not in ordered]
        ordered.sort(key=lambda name: name in tree.situational)  # stable: tech order kept
        return self.recipes.steps_for(ordered, self._described_step)

    def text(self) -> str:
        return "\n".join(
            [
                f"World: {self.world}.",
                "Actions:",
                self.actions,
                "Rules:",
                self.rules,
                "Achievements:",
                self.achievements,
                "Observation:",
                self.observation,
            ]
        )


def steps_text(steps: list[Step], note: Callable[[Step], str] | None = None) -> str:
    """``steps`` as numbered lines for prompts ('' for none), each followed by
    ``note(step)`` where given (e.g. the library skill that does it)."""
    lines = []
    for n, step in enumerate(steps, 1):
        extra = note(step) if note else ""
        lines.append(f"{n}. {step.text()}" + (f" {extra}" if extra else ""))
    return "\n".join(lines)


def _fmt(uses: dict) -> str:
    return ", ".join(f"{n} {k}" for k, n in uses.items()) or "nothing"


@cache
def _tech_tree_data() -> dict:
    return tomllib.loads(read_asset(TECH_TREE_FILE))


@cache
def crafter_tech_tree() -> TechTree:
    """Crafter's tech tree (Craftax-Classic's too) from its asset file."""
    data = _tech_tree_data()
    return TechTree(
        targets=dict(data["targets"]),
        skills=dict(data["skills"]),
        helpers=tuple(data["helpers"]["names"]),
        situational=frozenset(data["helpers"]["situational"]),
        search_helpers=dict(data["search_helpers"]),
        before_each_step=data["helpers"].get("before_each_step", ""),
        deaths={end: (tuple(d["skills"]), d["advice"]) for end, d in data["deaths"].items()},
    )


@cache
def crafter_documentation() -> WorldDocs:
    """Crafter's rules (Craftax-Classic shares them), with recipes read from Crafter's data."""
    # start-up: crafter (0.1 s) and yaml load when the recipes are read, not with the registry
    import crafter
    import yaml

    data = yaml.safe_load((crafter.constants.root / "data.yaml").read_text())
    actions = [
        "Primitive actions: " + ", ".join(ACTION_NAMES) + ".",
        "A move action turns the player to face that way and moves one tile if the tile is",
        "walkable (" + ", ".join(data["walkable"]) + "); into a solid block it only turns.",
        "`do` acts on the faced tile: collect a material, hit a creature, drink water, eat.",
    ]
    rules = ["Collecting (do on the faced block):"]
    for block, rule in data["collect"].items():
        need = _fmt(rule["require"])
        chance = f" with probability {rule['probability']}" if "probability" in rule else ""
        rules.append(f"- {block}: needs {need}; gives {_fmt(rule['receive'])}{chance}.")
    rules.append("Placing (onto the faced tile):")
    for item, rule in data["place"].items():
        rules.append(f"- place_{item}: uses {_fmt(rule['uses'])}; onto {', '.join(rule['where'])}.")
    rules.append("Making (needs the listed stations within a few tiles):")
    for item, rule in data["make"].items():
        rules.append(f"- make_{item}: uses {_fmt(rule['uses'])}; near {', '.join(rule['nearby'])}.")
    rules += [
        "In Craftax-Classic, place_furnace needs only 1 stone and the iron tools also use 1 stone.",
        "Survival: health, food, drink and energy range 0-9. Food and drink fall over time; eat",
        "cows or ripe plants, drink water. Sleep when energy is low (wake_up achievement).",
        "Zombies appear on grass (more at night); skeletons live in dark tunnels; lava kills.",
    ]
    return WorldDocs(
        world="Crafter (2D, top-down, 64x64 tiles; Craftax-Classic follows the same rules)",
        rules="\n".join(rules),
        actions="\n".join(actions),
        achievements=f"{len(ACHIEVEMENTS)}, each unlocked once per episode: "
        + ", ".join(ACHIEVEMENTS)
        + ".",
        observation="The player sees 9 wide x 7 tall tiles around it. Coordinates are (x, y): "
        "x grows to the right, y grows downwards. A View holds that grid of block names, the "
        "creatures in sight, the inventory, health/food/drink/energy, facing and daylight.",
        tech_tree=crafter_tech_tree(),
        recipes=Recipes(
            collect={
                b: (dict(r["require"]), dict(r["receive"])) for b, r in data["collect"].items()
            },
            place={i: (dict(r["uses"]), tuple(r["where"])) for i, r in data["place"].items()},
            make={i: (dict(r["uses"]), tuple(r["nearby"])) for i, r in data["make"].items()},
            restores={s: (stat, by) for s, (stat, by) in _tech_tree_data()["restores"].items()},
        ),
    )


#: what Craftax-Classic's game logic changes of Crafter's recipes (its ``game_logic.py``)
CRAFTAX_PLACE = {"furnace": {"stone": 1}}
CRAFTAX_MAKE = {
    "iron_pickaxe": {"wood": 1, "stone": 1, "coal": 1, "iron": 1},
    "iron_sword": {"wood": 1, "stone": 1, "coal": 1, "iron": 1},
}


@cache
def craftax_classic_documentation() -> WorldDocs:
    """Crafter's documentation with Craftax-Classic's recipes: its furnace takes 1 stone
    and its iron tools 1 stone more (the rules text says both)."""
    crafter = crafter_documentation()
    assert crafter.recipes is not None
    return replace(crafter, recipes=crafter.recipes.amended(CRAFTAX_PLACE, CRAFTAX_MAKE))
