/** The test registry: the built-in formats and the test tree's own, one line each. */
import { registerFormat, isFormatId } from '../../src/formats/registry.js';
import { toyHeap } from './toy-heap.js';

if (!isFormatId(toyHeap.id)) registerFormat(toyHeap);
