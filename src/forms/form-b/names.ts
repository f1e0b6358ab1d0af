/** Which of Form B's two documented spellings to send (see README: "Form B field names"). */
export type FormBNames = 'both' | 'table' | 'sample';
