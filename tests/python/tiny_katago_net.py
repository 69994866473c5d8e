"""Tiny, deterministic, randomly-initialised KataGo network for plumbing tests.

What: a ``.bin.gz`` model file that KataGo v1.17.2 loads and evaluates in well
under a millisecond per position on the Eigen (CPU) backend. Its weights are
random (fixed seed), so its moves, winrates and scores mean nothing; they are
finite, vary with the position and the rules/komi inputs, and are identical on
every run.

Why: tests that check plumbing -- which positions are sent, legality of moves,
determinism, resume -- need a real engine answering real queries, but not a
strong one. The real net (b10c384h6nbttflrs) costs seconds per evaluation on
a small CPU; this one makes such tests fast.

Model version: 15, the same version as the real net, so the engine runs the
same code paths: V7 inputs (22 spatial / 19 global features, i.e. stones,
liberties, ko, history, rules, komi, ...), the seven post-process multipliers
read from the header (v13+), six short-term error outputs (v9+), explicit
activation names (v11+), two policy channels (v12+) and the v15 pass head
(gpoolToPassBias -> passActivation -> gpoolToPassMul2). Versions 8..17 all
consume the same V7 features; 15 is the one the real net uses, and it needs
nothing the older layouts lack except a few header fields, so there is nothing
to gain from going lower. No SGF-metadata encoder (metaEncoderVersion 0),
standard (batch-norm) trunk, ReLU activations (supported by every backend).

Layout (text tokens separated by newlines, float blocks as "@BIN@" followed by
little-endian float32, exactly as ``ModelDesc::ModelDesc(istream&, ...)`` in
``cpp/neuralnet/desc.cpp`` reads them):

  header   name, 15, 22, 19, 7 post-process multipliers,
           metaEncoderVersion 0, preferPassAlive 0, 6 x unused 0
  trunk    TrunkDesc: "trunk" numBlocks=1 trunk=16 mid=16 regular=16
           dilated=8 gpool=8, trunkNormKind 0 + 5 x unused 0;
           initialConv 3x3 22->16, initialMatMul 19->16,
           1 x "ordinary_block" (parseResidualBlockStack / ResidualBlockDesc:
           BN, act, 3x3 conv 16->16, BN, act, 3x3 conv 16->16),
           trunkTipBN, trunkTipActivation
  policy   PolicyHeadDesc: p1Conv 1x1 16->8, g1Conv 1x1 16->8, g1BN, act,
           gpoolToBiasMul 24->8, p1BN, act, p2Conv 1x1 8->2,
           gpoolToPassMul 24->8, gpoolToPassBias 8, act, gpoolToPassMul2 8->2
  value    ValueHeadDesc: v1Conv 1x1 16->8, v1BN, act, v2Mul 24->16,
           v2Bias 16, act, v3Mul 16->3, v3Bias 3, sv3Mul 16->6, sv3Bias 6,
           vOwnershipConv 1x1 8->1

Layers follow ConvLayerDesc (name, ySize, xSize, in, out, dilY, dilX, floats
in y,x,in,out order), BatchNormLayerDesc (name, channels, epsilon, hasScale,
hasBias, mean, variance[, scale][, bias]), ActivationLayerDesc (name, kind),
MatMulLayerDesc (name, in, out, floats in in,out order), MatBiasLayerDesc
(name, channels, floats); readFloats reads the "@BIN@" blocks.

Weights: numpy Generator(PCG64(20261206)); convolutions and matrices
N(0, (sqrt(2) / sqrt(fan_in))^2) (the policy's p2Conv 4x that), bias vectors
N(0, 0.1^2), batch norm mean 0 / variance 1 / scale 1 / bias 0 (epsilon 1e-5).
A flat N(0, 0.1) was tried first: its outputs were nearly constant. The trunk
has no global-pooling block (the loader does not require one; global inputs
such as komi and rules enter through initialMatMul). Output bytes are identical
on every run (gzip with mtime=0 and no file name) and the file is written
atomically (temporary file in the same folder, then rename).

Determinism of the engine's answers is a matter of its settings, not of this
net: with numSearchThreads=1 and nnRandomize=false a 1-visit query is always
reproducible, but searches of more than one visit also need wideRootNoise=0
(the analysis engine defaults it to 0.04 and seeds its search randomly).

Usage:  python tests/python/tiny_katago_net.py OUT_PATH.bin.gz
or      from tiny_katago_net import write_tiny_net; write_tiny_net(path)
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import tempfile

import numpy as np

MODEL_NAME = "kibo-tiny-b1c16"
MODEL_VERSION = 15
NUM_SPATIAL_FEATURES = 22  # NNInputs::NUM_FEATURES_SPATIAL_V7
NUM_GLOBAL_FEATURES = 19  # NNInputs::NUM_FEATURES_GLOBAL_V7
SEED = 20261206
# Weights are N(0, (WEIGHT_GAIN * gain / sqrt(fan_in))^2) (He initialisation for
# ReLU). A flat N(0, 0.1) makes the tiny net's outputs almost constant (policy
# differences ~1e-5, winrate ~0.539 everywhere); this scale keeps every output
# finite while winrate, score and policy visibly depend on the position, komi and
# rules. The policy logits get an extra gain so the policy is not nearly uniform.
WEIGHT_GAIN = float(np.sqrt(2.0))
POLICY_LOGIT_GAIN = 4.0
BIAS_SCALE = 0.1

TRUNK_CHANNELS = 16
GPOOL_CHANNELS = 8  # header field only; the trunk has no gpool block
POLICY_CHANNELS = 8
POLICY_GPOOL_CHANNELS = 8
POLICY_OUT_CHANNELS = 2  # model versions 12..15
VALUE_CHANNELS = 8
VALUE_HIDDEN = 16
NUM_SCORE_VALUE_CHANNELS = 6  # model version >= 9
ACTIVATION = "ACTIVATION_RELU"

# Same post-process multipliers as the real b10c384h6nbttflrs net.
POST_PROCESS = (20.0, 20.0, 20.0, 20.0, 40.0, 0.25, 150.0)


class _Writer:
    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.buf = io.BytesIO()

    def tokens(self, *items: object) -> None:
        for item in items:
            self.buf.write(f"{item}\n".encode("ascii"))

    def floats(self, values: np.ndarray) -> None:
        data = np.ascontiguousarray(values, dtype="<f4").ravel()
        assert np.all(np.isfinite(data))
        self.buf.write(b"@BIN@")
        self.buf.write(data.tobytes())
        self.buf.write(b"\n")

    def random(self, *shape: int, gain: float = 1.0) -> np.ndarray:
        # He-style scale: std = WEIGHT_GAIN * gain / sqrt(fan_in), where
        # fan_in is the product of all but the last (output) axis.
        fan_in = int(np.prod(shape[:-1]))
        return self.rng.normal(0.0, WEIGHT_GAIN * gain / np.sqrt(fan_in), size=shape)

    def conv(self, name: str, size: int, cin: int, cout: int, gain: float = 1.0) -> None:
        self.tokens(name, size, size, cin, cout, 1, 1)
        self.floats(self.random(size, size, cin, cout, gain=gain))  # y, x, ic, oc

    def bn(self, name: str, channels: int) -> None:
        self.tokens(name, channels, 1e-5, 1, 1)
        self.floats(np.zeros(channels))  # mean
        self.floats(np.ones(channels))  # variance
        self.floats(np.ones(channels))  # scale
        self.floats(np.zeros(channels))  # bias

    def act(self, name: str) -> None:
        self.tokens(name, ACTIVATION)

    def matmul(self, name: str, cin: int, cout: int) -> None:
        self.tokens(name, cin, cout)
        self.floats(self.random(cin, cout))  # ic, oc

    def matbias(self, name: str, channels: int) -> None:
        self.tokens(name, channels)
        self.floats(self.rng.normal(0.0, BIAS_SCALE, size=channels))


def tiny_net_bytes() -> bytes:
    """Return the uncompressed model (the bytes inside the .bin.gz)."""
    w = _Writer(np.random.Generator(np.random.PCG64(SEED)))
    c = TRUNK_CHANNELS

    # ModelDesc header.
    w.tokens(MODEL_NAME, MODEL_VERSION, NUM_SPATIAL_FEATURES, NUM_GLOBAL_FEATURES)
    w.tokens(*POST_PROCESS)
    w.tokens(0, 0)  # metaEncoderVersion, preferPassAliveUnderSuicideRules
    w.tokens(0, 0, 0, 0, 0, 0)  # unused options C..H

    # TrunkDesc.
    w.tokens("trunk", 1, c, c, c, GPOOL_CHANNELS, GPOOL_CHANNELS)
    w.tokens(0, 0, 0, 0, 0, 0)  # trunkNormKind STANDARD, unused options B..F
    w.conv("trunk.initial_conv", 3, NUM_SPATIAL_FEATURES, c)
    w.matmul("trunk.initial_matmul", NUM_GLOBAL_FEATURES, c)
    w.tokens("ordinary_block", "trunk.block0")
    w.bn("trunk.block0.norm1", c)
    w.act("trunk.block0.act1")
    w.conv("trunk.block0.conv1", 3, c, c)
    w.bn("trunk.block0.norm2", c)
    w.act("trunk.block0.act2")
    w.conv("trunk.block0.conv2", 3, c, c)
    w.bn("trunk.tip_norm", c)
    w.act("trunk.tip_act")

    # PolicyHeadDesc (version 15 layout).
    p, g = POLICY_CHANNELS, POLICY_GPOOL_CHANNELS
    w.tokens("policy")
    w.conv("policy.p1_conv", 1, c, p)
    w.conv("policy.g1_conv", 1, c, g)
    w.bn("policy.g1_norm", g)
    w.act("policy.g1_act")
    w.matmul("policy.gpool_to_bias", 3 * g, p)
    w.bn("policy.p1_norm", p)
    w.act("policy.p1_act")
    w.conv("policy.p2_conv", 1, p, POLICY_OUT_CHANNELS, gain=POLICY_LOGIT_GAIN)
    w.matmul("policy.gpool_to_pass", 3 * g, p)
    w.matbias("policy.gpool_to_pass_bias", p)
    w.act("policy.pass_act")
    w.matmul("policy.gpool_to_pass2", p, POLICY_OUT_CHANNELS)

    # ValueHeadDesc.
    v, h = VALUE_CHANNELS, VALUE_HIDDEN
    w.tokens("value")
    w.conv("value.v1_conv", 1, c, v)
    w.bn("value.v1_norm", v)
    w.act("value.v1_act")
    w.matmul("value.v2_mul", 3 * v, h)
    w.matbias("value.v2_bias", h)
    w.act("value.v2_act")
    w.matmul("value.v3_mul", h, 3)
    w.matbias("value.v3_bias", 3)
    w.matmul("value.sv3_mul", h, NUM_SCORE_VALUE_CHANNELS)
    w.matbias("value.sv3_bias", NUM_SCORE_VALUE_CHANNELS)
    w.conv("value.ownership_conv", 1, v, 1)

    return w.buf.getvalue()


def tiny_net_gz_bytes() -> bytes:
    """Return the gzip-compressed model, byte-identical on every call."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(tiny_net_bytes())
    return out.getvalue()


def write_tiny_net(path: str | os.PathLike[str]) -> str:
    """Write the tiny net to ``path`` atomically and return the path.

    A name ending in ``.bin.gz`` or ``.gz`` gets the gzip form; ``.bin`` gets
    the uncompressed form (KataGo picks the reader from the suffix).
    """
    path = os.fspath(path)
    lower = path.lower()
    if lower.endswith(".gz"):
        data = tiny_net_gz_bytes()
    elif lower.endswith(".bin"):
        data = tiny_net_bytes()
    else:
        raise ValueError(f"model path must end in .bin.gz or .bin: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tiny-net-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: tiny_katago_net.py OUT_PATH.bin.gz", file=sys.stderr)
        return 2
    write_tiny_net(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
