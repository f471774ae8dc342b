//! `report`: see DESIGN.md, module map.

pub mod bench_record;
pub mod markdown;
pub mod svg;
