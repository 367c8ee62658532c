//! TPC-B: the debit-credit transaction on a bank's record files.
//!
//! TPC-B (Transaction Processing Performance Council, 1990; TP1's tighter
//! successor) models a bank of branches, tellers and customer accounts. Each
//! *debit-credit* transaction takes a random teller, an account (from the
//! teller's branch 85 % of the time, else from another branch) and an
//! amount, then adds the amount to the account's, the teller's and the
//! branch's balance, appends a history record, and commits durably. Drivers
//! issue transactions back to back, as fast as they can (TPC-A's one request
//! per terminal every 10 s is not modelled).
//!
//! - **Scaling rule**: the database grows with the throughput reported: for
//!   every transaction per second claimed, one more branch, that is 10
//!   tellers and 100 000 accounts of 100 bytes (10 MB of account data).
//! - **Metric**: the maximum transactions per second at which 90 % of the
//!   transactions complete within 2 s; beside it, throughput against the
//!   number of outstanding requests and the histogram of response times at
//!   that maximum.
//!
//! This module holds the groundwork: [`db`] lays out the four files (fixed
//! binary records), draws transactions by TPC-B's rules, runs one
//! transaction through an engine with per-record locks (several drivers at
//! once), and checks the database afterwards (the account, teller, branch
//! and history sums must agree).

pub mod db;
pub mod load;
pub mod report;
pub mod run;
pub mod survey;
