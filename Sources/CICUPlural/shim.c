// CICUPlural only declares functions of Foundation's ICU (include/CICUPlural.h);
// SwiftPM needs one source file to make it a target.
