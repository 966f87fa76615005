"""The Merkle code against RFC 6962's published test vectors, and by property."""

from __future__ import annotations

import random

import pytest

from kairos.domain.merkle import (
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

DATA = [bytes.fromhex(h) for h in ["", "00", "10", "2021", "3031", "40414243",
                                   "5051525354555657", "606162636465666768696a6b6c6d6e6f"]]
LEAVES = [leaf_hash(d) for d in DATA]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
INCLUSION = [  # (leaf index, tree size, audit path)
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
CONSISTENCY = [  # (old size, new size, proof)
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]


@pytest.mark.parametrize("n", range(9))
def test_tree_heads_match_the_rfc_vectors(n: int) -> None:
    assert root(LEAVES[:n]).hex() == ROOTS[n]


@pytest.mark.parametrize("index,size,path", INCLUSION)
def test_inclusion_proofs_match_the_rfc_vectors(index: int, size: int, path: list[str]) -> None:
    proof = inclusion_proof(index, LEAVES[:size])
    assert [p.hex() for p in proof] == path
    assert verify_inclusion(index, size, LEAVES[index], proof, bytes.fromhex(ROOTS[size]))
    assert not verify_inclusion(index, size, LEAVES[index ^ 1], proof, bytes.fromhex(ROOTS[size]))


@pytest.mark.parametrize("old,new,path", CONSISTENCY)
def test_consistency_proofs_match_the_rfc_vectors(old: int, new: int, path: list[str]) -> None:
    proof = consistency_proof(old, LEAVES[:new])
    assert [p.hex() for p in proof] == path
    assert verify_consistency(old, new, proof, bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new]))
    assert not verify_consistency(old, new, proof, bytes.fromhex(ROOTS[old - 1] if old > 1
                                                                 else ROOTS[2]),
                                  bytes.fromhex(ROOTS[new]))


def test_every_proof_verifies_and_every_tamper_fails() -> None:
    rng = random.Random(6962)
    leaves = [leaf_hash(bytes([i, rng.randrange(256)])) for i in range(40)]
    for n in range(1, 41):
        head = root(leaves[:n])
        for i in range(n):
            proof = inclusion_proof(i, leaves[:n])
            assert verify_inclusion(i, n, leaves[i], proof, head)
            assert not verify_inclusion(i, n, leaf_hash(b"forged"), proof, head)
        for m in range(1, n + 1):
            proof = consistency_proof(m, leaves[:n])
            old = root(leaves[:m])
            assert verify_consistency(m, n, proof, old, head)
            forked = [*leaves[:m - 1], leaf_hash(b"forged")]
            assert m == n or not verify_consistency(m, n, proof, root(forked), head)
