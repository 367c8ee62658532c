//! The integration tests: one binary (linking the crate once), one module
//! per command. Each runs the built `iogauge` on small sizes in temporary
//! directories and checks what it printed and wrote.

mod common;

mod andrew;
mod architecture;
mod bonnie;
mod caps;
mod cli;
mod compare;
mod crash;
mod depth;
mod device;
mod dist;
mod docs;
mod faultfs;
mod faults;
mod ffsb;
mod fio;
mod fio_buffers;
mod fio_bytes;
mod fio_cmdline;
mod fio_control;
mod fio_layout;
mod fio_opts;
mod fio_out;
mod fio_pvsync;
mod fio_report_opts;
mod fio_run;
mod fio_steady;
mod fio_verify;
mod given_file;
mod input;
mod io_logs;
mod iobench;
mod iobench_spectrum;
mod iozone;
mod laddis;
mod live;
mod log_hist;
#[cfg(feature = "mpi")]
mod mpi;
#[cfg(feature = "mpi")]
mod mpi_benches;
#[cfg(feature = "mpi")]
mod mpi_faults;
#[cfg(feature = "mpi")]
mod mpi_laddis;
mod numbers;
mod pin;
mod postmark;
mod predict;
mod queue;
mod report;
mod report_html;
mod run;
mod safety;
mod scale;
mod schema;
mod scientific;
mod sdet;
mod selfscale;
mod shell;
mod show;
mod tpcb;
mod verify;
