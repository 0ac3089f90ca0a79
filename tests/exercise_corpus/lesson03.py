"""Lesson 03's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

CORPUS[("03", 1)] = [
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        mask = torch.tril(torch.ones(n, n))
        self.register_buffer("mask", mask, persistent=False)
        self.plain = mask  # the same values, kept a second time as a plain attribute

    def forward(self, X):
        return X * self.plain
''', "registers the mask but multiplies by a plain copy, which .to() leaves behind"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X * self.mask
''', "the reference"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("keep", torch.tril(torch.ones(n, n, dtype=torch.bool)), persistent=False)

    def forward(self, X):
        return X.masked_fill(~self.keep, 0)
''', "a bool mask and masked_fill"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("tri", torch.ones(n, n).tril(), False)
        self.n = n

    def forward(self, X):
        return torch.mul(X, self.tri)

    def extra_repr(self):
        return f"n={self.n}"
''', "Tensor.tril, torch.mul, more than asked"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        nn.Module.__init__(self)
        mask = torch.zeros(n, n)
        for i in range(n):
            mask[i, : i + 1] = 1
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, X):
        return X.mul(self.mask)
''', "the mask built in a loop"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)))

    def forward(self, X):
        return X * self.mask
''', "persistent=False left out"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))

    def forward(self, X):
        return X * self.mask
''', "a plain tensor attribute"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X * self.mask
''', "the upper triangle"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = nn.Parameter(torch.tril(torch.ones(n, n)), requires_grad=False)

    def forward(self, X):
        return X * self.mask
''', "a frozen parameter"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X @ self.mask
''', "a matrix product, not element-wise"),
]

CORPUS[("03", 2)] = [
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)
''', "the reference"),
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.branches = nn.ModuleList([module_a, module_b])

    def forward(self, X):
        return torch.concat([branch(X) for branch in self.branches], dim=X.dim() - 1)
''', "nn.ModuleList, torch.concat"),
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.add_module("a", module_a)
        self.add_module("b", module_b)

    def forward(self, X):
        outputs = [module(X) for module in self.children()]
        return torch.cat(outputs, -1)
''', "add_module and children()"),
    right('''
class Parallel(nn.Sequential):
    def __init__(self, module_a, module_b):
        super().__init__(module_a, module_b)

    def forward(self, X):
        return torch.cat(tuple(m(X) for m in self), dim=-1)
''', "a subclass of nn.Sequential"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.pair = [module_a, module_b]

    def forward(self, X):
        return torch.cat([m(X) for m in self.pair], dim=-1)
''', "a plain list: invisible to .to()"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=1)
''', "dim=1"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_b(X), self.module_a(X)], dim=-1)
''', "the outputs swapped"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)
''', "super().__init__() forgotten"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return self.module_a(X), self.module_b(X)
''', "a tuple of the two outputs"),
]

CORPUS[("03", 3)] = [
    right("in_features = 3456", "typed"),
    right("in_features = 6 * 24 * 24", "worked out"),
    right('''
conv_net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
conv_net(torch.zeros(2, 1, 28, 28))
in_features = conv_net[3].in_features
''', "computed from a batch"),
    right("in_features = np.int64(3456)", "a numpy integer"),
    right("in_features = 3456.0", "a whole float"),
    wrong("in_features = 6 * 28 * 28", "padding forgotten"),
    wrong('''
conv_net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
conv_net(torch.zeros(1, 28, 28))
in_features = conv_net[3].in_features
''', "one image without a batch dimension"),
    wrong("in_features = 6 * 25 * 25", "off by one"),
    wrong('in_features = "3456"', "a string"),
    wrong("in_features = 10", "the output size"),
]

FORBIDDEN = {
    ("03", 3): ["3456", "3,456", "24 x 24", "24x24"],
}
