/* A sort that a cancel stops: see cancellable_sort.h. */
#include "postgres.h"

#include "miscadmin.h"

#include "cancellable_sort.h"

#define SORT_RUN ((size_t) 32768)

void
cancellable_sort(void *base, size_t n, size_t size, qsort_arg_comparator compare, void *arg)
{
	char	   *array = base;
	char	   *buffer;
	char	   *from = array;
	char	   *to;
	size_t		width;
	size_t		begin;

	for (begin = 0; begin < n; begin += SORT_RUN)
	{
		CHECK_FOR_INTERRUPTS();
		qsort_arg(array + begin * size, Min(SORT_RUN, n - begin), size, compare, arg);
	}
	if (n <= SORT_RUN)
		return;
	buffer = MemoryContextAllocHuge(CurrentMemoryContext, size * n);
	to = buffer;
	for (width = SORT_RUN; width < n; width *= 2)
	{
		char	   *swap;

		for (begin = 0; begin < n; begin += 2 * width)
		{
			size_t		middle = Min(begin + width, n);
			size_t		end = Min(begin + 2 * width, n);
			size_t		i = begin;
			size_t		j = middle;
			char	   *out = to + begin * size;

			CHECK_FOR_INTERRUPTS();
			while (i < middle && j < end)
			{
				/* Ties from the left run first. */
				if (compare(from + j * size, from + i * size, arg) < 0)
					memcpy(out, from + (j++) * size, size);
				else
					memcpy(out, from + (i++) * size, size);
				out += size;
			}
			memcpy(out, from + i * size, (middle - i) * size);
			out += (middle - i) * size;
			memcpy(out, from + j * size, (end - j) * size);
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != array)
		memcpy(array, from, size * n);
	pfree(buffer);
}
