package docgen

// monitoringBlocks are the generated blocks of docs/monitoring.md.
func monitoringBlocks() []Block {
	return nil
}
