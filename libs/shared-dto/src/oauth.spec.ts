import { nameSkeleton, reservedNameProblem } from './oauth';

describe('reservedNameProblem', () => {
  it('refuses names that contain switchyard, admin or official, whatever the case, spacing or look-alike letters', () => {
    for (const name of [
      'Switchyard',
      'SWITCHYARD Login',
      'Switch yard helper',
      'S.w.i.t.c.h.y.a.r.d',
      'Sw\u200bitchyard', // a zero-width space
      'Ｓｗｉｔｃｈｙａｒｄ', // full-width letters
      'Swіtchyard', // a Cyrillic і
      'Ѕwitchуard', // Cyrillic Ѕ and у
      'Swítchyárd',
      'Sw1tchyard',
      'Svvitchyard',
      'Site Admin',
      'ADMlN panel',
      'Adrnin',
      'Official App',
      '0ffic1al app',
      'Оfficial', // a Cyrillic О
    ])
      expect([name, reservedNameProblem(name)]).toEqual([name, expect.stringContaining('must not contain')]);
  });

  it('accepts ordinary names', () => {
    for (const name of ['My Chat App', 'Agent Desk', 'Weather Bot 3000', 'Mobile'])
      expect(reservedNameProblem(name)).toBeNull();
  });

  it('folds l and i alike, so the skeletons of look-alikes are equal', () => {
    expect(nameSkeleton('officlal')).toBe(nameSkeleton('official'));
  });
});
