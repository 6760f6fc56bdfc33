// WebKitGTK's web-process extension API, for the frame-stamping extension (C only; not imported by Swift).
#include <webkit2/webkit-web-extension.h>
