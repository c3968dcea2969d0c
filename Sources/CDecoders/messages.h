#ifndef STATSHEET_CDECODERS_MESSAGES_H
#define STATSHEET_CDECODERS_MESSAGES_H
/// Keeps one message for the calling thread (internal to this target).
void cdecoders_message_add(const char *text);
#endif
