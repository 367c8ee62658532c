//! PostMark 1.53 (Katcher, NetApp): the command language, the exact run
//! procedure and the reports, all free of I/O. The executor that performs
//! the operations on disk lives elsewhere and drives [`plan::Plan`].

pub mod command;
pub mod config;
pub mod mt;
pub mod plan;
pub mod report;
