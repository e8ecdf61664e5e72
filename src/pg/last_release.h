/* The session's most recent release metadata (dp.last_release()). */
#ifndef INVARIANT_DP_LAST_RELEASE_H
#define INVARIANT_DP_LAST_RELEASE_H

extern void remember_release(const char *metadata_json);

#endif
