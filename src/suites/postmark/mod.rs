//! PostMark 1.53 (Katcher, NetApp): the command language, the exact run
//! procedure and the reports, all free of I/O; the executor ([`exec`])
//! that performs a [`plan::Plan`] on disk, and the interpreter ([`interp`])
//! that runs PostMark's command language on top of both.

pub mod command;
pub mod config;
pub mod exec;
pub mod interp;
pub mod mt;
pub mod plan;
pub mod report;
