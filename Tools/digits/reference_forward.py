#!/usr/bin/env python3
"""Plain NumPy forward pass of the statsheet digit CNN, read straight from digits-cnn.bin.

This is the reference the Swift inference must match. It knows nothing about
PyTorch: it reads the little-endian float32 blob in the documented order and
computes the network with explicit loops over im2col matrices.

    python3 Tools/digits/reference_forward.py Sources/DigitNet/Model/
        checks every vector in testvectors.json against this implementation.
"""
import json
import os
import sys

import numpy as np

# Channels of the two convolutions before the first pooling, of the two after it, and the hidden
# fully connected layer. train.py builds the network this wide; digits-cnn.json records the shapes,
# and the Swift inference reads the widths from there (DigitNetwork.Widths).
WIDTHS = (24, 48, 192)


def layout(widths):
    """(name, shape) in file order. Conv weights are [out][in][ky][kx], FC weights [out][in],
    everything row-major (C order) exactly as PyTorch stores it."""
    e, l, h = widths
    return [
        ("conv1.weight", (e, 1, 3, 3)), ("conv1.bias", (e,)),
        ("conv2.weight", (e, e, 3, 3)), ("conv2.bias", (e,)),
        ("conv3.weight", (l, e, 3, 3)), ("conv3.bias", (l,)),
        ("conv4.weight", (l, l, 3, 3)), ("conv4.bias", (l,)),
        ("fc1.weight", (h, l * 7 * 7)), ("fc1.bias", (h,)),
        ("fc2.weight", (11, h)), ("fc2.bias", (11,)),
    ]


def recorded_widths(folder):
    """The widths digits-cnn.json in `folder` records (conv1's, conv3's and fc1's outputs)."""
    with open(os.path.join(folder, "digits-cnn.json")) as f:
        shapes = {layer["name"]: layer["shape"] for layer in json.load(f)["layers"]}
    return (shapes["conv1.weight"][0], shapes["conv3.weight"][0], shapes["fc1.weight"][0])


def load_weights(path, widths):
    raw = np.fromfile(path, dtype="<f4")
    expected = sum(int(np.prod(s)) for _, s in layout(widths))
    if raw.size != expected:
        raise ValueError(f"{path}: {raw.size} floats, expected {expected} for widths {widths}")
    weights, off = {}, 0
    for name, shape in layout(widths):
        n = int(np.prod(shape))
        weights[name] = raw[off:off + n].reshape(shape).astype(np.float64)
        off += n
    return weights


def conv3x3_same(x, w, b):
    """x [C,H,W], w [O,C,3,3], b [O] -> [O,H,W]; zero padding 1, stride 1.
    out[o,y,x] = b[o] + sum_{c,ky,kx} w[o,c,ky,kx] * in[c, y+ky-1, x+kx-1]."""
    c, h, wd = x.shape
    p = np.zeros((c, h + 2, wd + 2), dtype=x.dtype)
    p[:, 1:-1, 1:-1] = x
    cols = np.empty((c, 3, 3, h, wd), dtype=x.dtype)
    for ky in range(3):
        for kx in range(3):
            cols[:, ky, kx] = p[:, ky:ky + h, kx:kx + wd]
    out = w.reshape(w.shape[0], -1) @ cols.reshape(c * 9, h * wd)
    return out.reshape(w.shape[0], h, wd) + b[:, None, None]


def maxpool2(x):
    c, h, w = x.shape
    return x.reshape(c, h // 2, 2, w // 2, 2).max(axis=(2, 4))


def relu(x):
    return np.maximum(x, 0.0)


def logits(weights, img):
    """img: [28,28] float array, ink 1.0, paper 0.0 (already preprocessed)."""
    x = np.asarray(img, dtype=np.float64).reshape(1, 28, 28)
    x = relu(conv3x3_same(x, weights["conv1.weight"], weights["conv1.bias"]))
    x = relu(conv3x3_same(x, weights["conv2.weight"], weights["conv2.bias"]))
    x = maxpool2(x)                                     # [early,14,14]
    x = relu(conv3x3_same(x, weights["conv3.weight"], weights["conv3.bias"]))
    x = relu(conv3x3_same(x, weights["conv4.weight"], weights["conv4.bias"]))
    x = maxpool2(x)                                     # [late,7,7]
    v = x.reshape(-1)                                   # index c*49 + y*7 + x
    v = relu(weights["fc1.weight"] @ v + weights["fc1.bias"])
    return weights["fc2.weight"] @ v + weights["fc2.bias"]


def softmax_t(z, temperature):
    z = np.asarray(z, dtype=np.float64) / temperature
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def probabilities(weights, img, temperature):
    return softmax_t(logits(weights, img), temperature)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    weights = load_weights(os.path.join(d, "digits-cnn.bin"), recorded_widths(d))
    with open(os.path.join(d, "testvectors.json")) as f:
        tv = json.load(f)
    t = tv["temperature"]
    worst = 0.0
    for v in tv["vectors"]:
        p = probabilities(weights, np.array(v["input"], dtype=np.float32), t)
        worst = max(worst, float(np.abs(p - np.array(v["probabilities"])).max()))
    ok = worst <= tv["tolerance"]
    print(f"{len(tv['vectors'])} vectors, max |dp| = {worst:.2e} -> {'OK' if ok else 'MISMATCH'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
