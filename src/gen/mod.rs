//! `gen`: seeded case generation. One seed fixes every case on every
//! machine and version (ChaCha8 with samplers of our own, `rng`); cases come
//! from named pattern families (`pattern`), a run's selection of them is a
//! `suite::SuiteSpec`, split deterministically by `--shard K/N`; a failing
//! case is shrunk by `minimize`.

pub mod digest;
pub mod minimize;
pub mod odds;
pub mod pattern;
pub mod rng;
pub mod rounds;
pub mod soak;
pub mod suite;
pub mod traffic;

pub use digest::{case_digest, case_digest_u64};
pub use pattern::{generate, CaseId, Generated, Pattern};
pub use rng::GENERATOR_VERSION;
pub use suite::{Shard, SuiteSpec};
