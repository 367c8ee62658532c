//! Reads FFSB 6.0 profile files (to be written).
