//! AD-GCL (to be written).
