enum ArchiveServerPlaceholder {}
