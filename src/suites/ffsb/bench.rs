//! The file sets, aging and the run of the thread groups (to be written).
