"""RFC 6962 / RFC 9162 Merkle trees: tree heads, inclusion and consistency proofs.

Leaves and nodes are hashed with distinct prefixes (0x00 for a leaf, 0x01 for
a node), so a leaf can never pass for a node.  A tree of n leaves splits at
the largest power of two smaller than n.  Checked against the published
test vectors in tests/test_merkle.py.  Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

EMPTY = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def root(leaves: Sequence[bytes]) -> bytes:
    """The tree head of already-hashed leaves."""
    n = len(leaves)
    if n == 0:
        return EMPTY
    if n == 1:
        return leaves[0]
    # Bottom-up, level by level: the same tree as the recursive definition,
    # since every left subtree is a full power of two.
    level = list(leaves)
    while len(level) > 1:
        nxt = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``leaves``."""
    n = len(leaves)
    if not 0 <= index < n:
        raise ValueError(f"leaf {index} is not in a tree of {n}")
    if n == 1:
        return []
    k = _split(n)
    if index < k:
        return [*inclusion_proof(index, leaves[:k]), root(leaves[k:])]
    return [*inclusion_proof(index - k, leaves[k:]), root(leaves[:k])]


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes],
                     expected_root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The proof that the tree of ``leaves`` extends its first ``old_size``."""
    n = len(leaves)
    if not 0 < old_size <= n:
        raise ValueError(f"no consistency proof from {old_size} to {n}")

    def subproof(m: int, d: Sequence[bytes], complete: bool) -> list[bytes]:
        size = len(d)
        if m == size:
            return [] if complete else [root(d)]
        k = _split(size)
        if m <= k:
            return [*subproof(m, d[:k], complete), root(d[k:])]
        return [*subproof(m - k, d[k:], False), root(d[:k])]

    return subproof(old_size, leaves, True)


def verify_consistency(old_size: int, new_size: int, proof: Sequence[bytes], old_root: bytes,
                       new_root: bytes) -> bool:
    """RFC 9162 section 2.1.4.2."""
    if old_size == new_size:
        return not proof and old_root == new_root
    if not 0 < old_size < new_size or not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the first node
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root
