//! Known sizes and sha256 checksums of dataset files, by their path in the mirror layout
//! (`tu/NAME/NAME_A.txt`, `planetoid/ind.cora.x`, `npz/FILE.npz`, `dgcnn/NAME.zip`). Every
//! download or mirror copy of a listed file is checked against this table before it enters
//! the cache (an `.npz` read out of the mirror's `npz/NAME.zip` is checked as `npz/NAME.npz`).
//!
//! Source: the dataset notes of this benchmark (files copied byte for byte from public
//! repositories and cross-checked there). The entries for `ind.pubmed.allx` and the three
//! gnn-benchmark `.npz` files come from a third-party Git-LFS pointer: they are the best
//! value known, but were not checked against the original files.

/// A file's expected size and sha256 (lower-case hex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum {
    pub path: &'static str,
    pub size: u64,
    pub sha256: &'static str,
}

/// All known files, sorted by path.
pub const CHECKSUMS: &[Checksum] = &[
    Checksum {
        path: "dgcnn/COLLAB.zip",
        size: 4164412,
        sha256: "9ecf84c958ac765b9e0f878f4bd002fec20926e0c3d037cb753ab251f59b41f3",
    },
    Checksum {
        path: "dgcnn/DD.zip",
        size: 2559550,
        sha256: "0ce3eca1f096ce77ff6fb2287b2b45d0d6991ca1f15734fc873a1003ac79c34d",
    },
    Checksum {
        path: "dgcnn/IMDBBINARY.zip",
        size: 107488,
        sha256: "0424af4414007a76bd0d7d9f8e7ba845f595745d142894cf42b505b30f5ff7d8",
    },
    Checksum {
        path: "dgcnn/IMDBMULTI.zip",
        size: 94934,
        sha256: "20caee26511d0e5ed130bcb1054b2697b91cc8bb846c72cf0f37a92f99bfc67b",
    },
    Checksum {
        path: "dgcnn/MUTAG.zip",
        size: 12363,
        sha256: "545905a7f0782cba6d3f96cb40af67c90e54f26932341999103e1eb94bbbee52",
    },
    Checksum {
        path: "dgcnn/NCI1.zip",
        size: 391519,
        sha256: "8cd032542f59df715c5983b05bb2b5396ab501c3b41d4ecbd941b88dc40c8c59",
    },
    Checksum {
        path: "dgcnn/PROTEINS.zip",
        size: 217194,
        sha256: "d28f022559a1fe3f3c0cfd49c96a68a8cb8a1d1e31d5506fb7d93e438eab6f52",
    },
    Checksum {
        path: "dgcnn/REDDIT-BINARY.zip",
        size: 3288201,
        sha256: "c45536bdd84db7a4913fd6a45ae7616a12a02bf1f444a4effbce903524d62121",
    },
    Checksum {
        path: "npz/amazon_electronics_computers.npz",
        size: 31921488,
        sha256: "736ba1d9fd85eac2da83a5ad25c463f04b0031a6ca01563f90a7099d9e8ffb2c",
    },
    Checksum {
        path: "npz/amazon_electronics_photo.npz",
        size: 17113960,
        sha256: "bdb1feb8e6ff42ee44024b04479145029c563fd42fc31bff80af20887ba0439a",
    },
    Checksum {
        path: "npz/ms_academic_cs.npz",
        size: 12835626,
        sha256: "933c745734e78908c7eb77172a673fee0503f30e26e5a99b36814d88534c42e3",
    },
    Checksum {
        path: "planetoid/ind.citeseer.allx",
        size: 595021,
        sha256: "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
    },
    Checksum {
        path: "planetoid/ind.citeseer.ally",
        size: 55623,
        sha256: "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
    },
    Checksum {
        path: "planetoid/ind.citeseer.graph",
        size: 61987,
        sha256: "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
    },
    Checksum {
        path: "planetoid/ind.citeseer.test.index",
        size: 5000,
        sha256: "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
    },
    Checksum {
        path: "planetoid/ind.citeseer.tx",
        size: 260321,
        sha256: "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
    },
    Checksum {
        path: "planetoid/ind.citeseer.ty",
        size: 24135,
        sha256: "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
    },
    Checksum {
        path: "planetoid/ind.citeseer.x",
        size: 31087,
        sha256: "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
    },
    Checksum {
        path: "planetoid/ind.citeseer.y",
        size: 3014,
        sha256: "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
    },
    Checksum {
        path: "planetoid/ind.cora.allx",
        size: 257305,
        sha256: "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
    },
    Checksum {
        path: "planetoid/ind.cora.ally",
        size: 47959,
        sha256: "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
    },
    Checksum {
        path: "planetoid/ind.cora.graph",
        size: 59847,
        sha256: "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
    },
    Checksum {
        path: "planetoid/ind.cora.test.index",
        size: 5000,
        sha256: "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
    },
    Checksum {
        path: "planetoid/ind.cora.tx",
        size: 148025,
        sha256: "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
    },
    Checksum {
        path: "planetoid/ind.cora.ty",
        size: 28135,
        sha256: "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
    },
    Checksum {
        path: "planetoid/ind.cora.x",
        size: 22119,
        sha256: "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
    },
    Checksum {
        path: "planetoid/ind.cora.y",
        size: 4054,
        sha256: "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
    },
    Checksum {
        path: "planetoid/ind.pubmed.allx",
        size: 7578385,
        sha256: "508e538e2abdccdd54c4d3e9f49d638b4af7107d85845f66ddea5a5152658b7e",
    },
    Checksum {
        path: "planetoid/ind.pubmed.ally",
        size: 224739,
        sha256: "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e",
    },
    Checksum {
        path: "planetoid/ind.pubmed.graph",
        size: 471808,
        sha256: "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9",
    },
    Checksum {
        path: "planetoid/ind.pubmed.test.index",
        size: 6000,
        sha256: "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5",
    },
    Checksum {
        path: "planetoid/ind.pubmed.tx",
        size: 405505,
        sha256: "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d",
    },
    Checksum {
        path: "planetoid/ind.pubmed.ty",
        size: 12135,
        sha256: "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd",
    },
    Checksum {
        path: "planetoid/ind.pubmed.x",
        size: 23172,
        sha256: "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33",
    },
    Checksum {
        path: "planetoid/ind.pubmed.y",
        size: 854,
        sha256: "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3",
    },
    Checksum {
        path: "tu/IMDB-BINARY/IMDB-BINARY_A.txt",
        size: 4596012,
        sha256: "23c8964bab82f81469271186d721131714a265d0ca8c44ae048118da1d0c4092",
    },
    Checksum {
        path: "tu/IMDB-BINARY/IMDB-BINARY_graph_indicator.txt",
        size: 76924,
        sha256: "415cc3ba25b8c647dcf34d3de034f675ee070616f3b803be939cb26773489f26",
    },
    Checksum {
        path: "tu/IMDB-BINARY/IMDB-BINARY_graph_labels.txt",
        size: 2000,
        sha256: "63a44411fd6342b9c4429828c16e144a2a11ef5244e25bb60f0ffa8b3ee2ffce",
    },
    Checksum {
        path: "tu/IMDB-MULTI/IMDB-MULTI_A.txt",
        size: 4702980,
        sha256: "fb538b23758d78df199272301e57dc74ad5754d6c3d79d5ed0a343193ddf4ec6",
    },
    Checksum {
        path: "tu/IMDB-MULTI/IMDB-MULTI_graph_indicator.txt",
        size: 82760,
        sha256: "0274532a0e47dad9cdd21c08995c2265e43040a2c2a3b36c62fdb790994571d3",
    },
    Checksum {
        path: "tu/IMDB-MULTI/IMDB-MULTI_graph_labels.txt",
        size: 3000,
        sha256: "613c2357b6b996f6f04b91697a99da87774820f9d08bf22813992f4c7afda855",
    },
    Checksum {
        path: "tu/MUTAG/MUTAG_A.txt",
        size: 76940,
        sha256: "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2",
    },
    Checksum {
        path: "tu/MUTAG/MUTAG_edge_labels.txt",
        size: 14884,
        sha256: "4669ce755075ff86c3240709345745886400908fa637a49310459b9c267b3e56",
    },
    Checksum {
        path: "tu/MUTAG/MUTAG_graph_indicator.txt",
        size: 11532,
        sha256: "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056",
    },
    Checksum {
        path: "tu/MUTAG/MUTAG_graph_labels.txt",
        size: 439,
        sha256: "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c",
    },
    Checksum {
        path: "tu/MUTAG/MUTAG_node_labels.txt",
        size: 6742,
        sha256: "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863",
    },
    Checksum {
        path: "tu/NCI1/NCI1_A.txt",
        size: 3235898,
        sha256: "2c028eda59a5fe96e2265a63d9ac236901bd9a7dc658498be13cd704a703076d",
    },
    Checksum {
        path: "tu/NCI1/NCI1_graph_indicator.txt",
        size: 585267,
        sha256: "ffe5acfa754b057d5ce0dc725c5aadb631628161886cc040d38c719635257dc5",
    },
    Checksum {
        path: "tu/NCI1/NCI1_graph_labels.txt",
        size: 8220,
        sha256: "fae44681e70113f496256ae87eaac33b7836e3a97fe8e023933b84fde6a5c8a2",
    },
    Checksum {
        path: "tu/NCI1/NCI1_node_labels.txt",
        size: 245932,
        sha256: "dc0a22b6cbff0c939de00373e823977ba32b358f560e4288d7602f7b51407ee2",
    },
    Checksum {
        path: "tu/PROTEINS/PROTEINS_A.txt",
        size: 2022990,
        sha256: "4c4b33e272fc95cac6d27ed6d5d12b9a852c8610e91fff59f8f0dbdd5a20df67",
    },
    Checksum {
        path: "tu/PROTEINS/PROTEINS_graph_indicator.txt",
        size: 169673,
        sha256: "8d4ff1e852a5c28561e9bffb44cf9490bc552b13a3b6156dd12dc7f44e9afc4a",
    },
    Checksum {
        path: "tu/PROTEINS/PROTEINS_graph_labels.txt",
        size: 2226,
        sha256: "c0ef9810c440775252872318d0c8adc385588e14bc4c47a2c34aa96ee3c7cdcd",
    },
    Checksum {
        path: "tu/PROTEINS/PROTEINS_node_attributes.txt",
        size: 478190,
        sha256: "54eef829abb37e458a5fbf3a3c581e48e5810e220463c2cd951856b9ceb08f07",
    },
    Checksum {
        path: "tu/PROTEINS/PROTEINS_node_labels.txt",
        size: 86942,
        sha256: "f758e8ad3d6e3c026b50833d75f6f90735b94eb3345e4243707f495ca8afea8d",
    },
];

/// The checksum of a file by its mirror-layout path, if known.
pub fn lookup(path: &str) -> Option<&'static Checksum> {
    CHECKSUMS
        .binary_search_by(|c| c.path.cmp(path))
        .ok()
        .and_then(|i| CHECKSUMS.get(i))
}

/// Lower-case hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sha256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_findable() {
        assert!(CHECKSUMS.windows(2).all(|w| w[0].path < w[1].path));
        assert_eq!(lookup("tu/MUTAG/MUTAG_A.txt").map(|c| c.size), Some(76940));
        assert!(lookup("tu/MUTAG/nothing.txt").is_none());
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
