//! FFSB's report (to be written).
