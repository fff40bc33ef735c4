/// Which property-list dialect an archive arrived in or should be written as.
public enum PlistFormat: Sendable { case binary, xml }
