//! Node-level base model / MA-GCL (to be written).
