/// Which JSON view of an archive to write: the readable mapping, or the plist itself.
public enum ArchiveView: Sendable { case readable, raw }
