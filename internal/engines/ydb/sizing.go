package ydb

// HardLimit is YDB's memory_controller_config.hard_limit_bytes: the pod's memory. YDB's memory
// controller divides it among its shared cache, MemTables and queries by its own shares.
func HardLimit(memory int64) int64 { return memory }
