//! IOzone 3.489.

pub mod report;
