/// NSKeyedArchiver's own plist keys that the readable JSON does not use: the object table, a
/// class description's name and the null object's string. (The envelope's and an object's keys
/// that the JSON names the same way are `MappingKeys`'.)
enum ArchiverKeys {
    /// The root's array of every object; UIDs index it.
    static let objects: StaticString = "$objects"
    /// A class description's class name.
    static let className: StaticString = "$classname"
    /// The string at `$objects[0]` that UID 0 (nil) points to.
    static let null: StaticString = "$null"
}
